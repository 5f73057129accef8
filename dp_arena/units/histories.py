"""Hand histories of a table unit, rebuilt from its result.

A :class:`~dp_arena.results.DealRecord` holds each deal's button and actions, and the
unit holds the rules and deck ids, so every hand can be replayed through the engine
wherever the unit and its result are: a Ray worker writes the history of each unit it
played (so the driver only stores it), the driver writes those of units it played
itself or read back from the store, and ``dp-arena verify`` writes them all again. It is
a pure function of the unit and its result, so the histories of a run are the same on
every executor. A replay that does not reproduce the recorded nets is an engine bug and
raises.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from dp_arena.engine import Action, HandState, deck_for, new_hand
from dp_arena.results import DealRecord, TableSessionResult
from dp_arena.units.table import TableUnit

if TYPE_CHECKING:
    from dp_arena.engine.phh import SessionHistory

__all__ = ["empty_history", "rebuild_hands", "session_history_text"]


def _action(text: str) -> tuple[int, Action]:
    seat_text, _, action_text = text.partition(":")
    words = action_text.split()
    kind = words[0]
    if kind == "raise":
        return int(seat_text), Action.raise_to(int(words[1]))
    return int(seat_text), {"fold": Action.fold(), "check": Action.check(), "call": Action.call()}[
        kind
    ]


def rebuild_hand(unit: TableUnit, record: DealRecord) -> HandState:
    """The finished hand of ``record``, replayed through the engine."""
    deck = deck_for(unit.event_seed, unit.section, unit.session, record.deal)
    state = new_hand(unit.rules, deck, button=record.button, absent=record.absent)
    for text in record.actions:
        seat, action = _action(text)
        if state.actor != seat:
            raise AssertionError(
                f"hand history of deal {record.deal}: {text!r} out of turn"
                f" (seat {state.actor} acts)"
            )
        state.apply(action)
    if state.payoffs != record.nets:
        raise AssertionError(
            f"hand history of deal {record.deal}: replayed nets {state.payoffs} != {record.nets}"
        )
    return state


def rebuild_hands(unit: TableUnit, result: TableSessionResult) -> Iterator[tuple[int, HandState]]:
    for record in result.deals:
        yield record.deal, rebuild_hand(unit, record)


def empty_history(unit: TableUnit) -> SessionHistory:
    """The history of a table unit before its first hand: a worker that plays the unit
    records each hand as it finishes (its ``record`` is the ``on_deal`` of the session),
    which gives the text :func:`session_history_text` rebuilds, without the replay."""
    from dp_arena.engine.phh import SessionHistory

    return SessionHistory(
        event=unit.event,
        section=unit.section,
        session=unit.session,
        table=unit.table,
        players=unit.players,
        starting_chips=unit.starting_chips,
    )


def session_history_text(unit: TableUnit, result: TableSessionResult) -> str:
    """The PHHS text of a table unit's hands, with the event's ids and session totals."""
    history = empty_history(unit)
    for deal, state in rebuild_hands(unit, result):
        history.record(deal, state)
    for record in result.deals:
        history.note_mixes(record.deal, record.mixes)
    return history.text()
