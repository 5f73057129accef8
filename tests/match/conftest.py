"""Throwaway: a stand-in for ``dp_arena.ratings.rollouts`` until the real module lands,
following its contract (``begin_session`` once per seat, then per rollout ``begin_deal``,
``decide``, ``end_deal``; faults recorded nowhere). It values nothing: it returns the
result as it was. Installed only where the real module is missing."""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dp_arena.agents import Seat, SeatFault, SessionContext
from dp_arena.agents.observation import DealEnd, DealStart
from dp_arena.agents.table import observe
from dp_arena.engine import Mix, TableRules, new_hand
from dp_arena.ratings.action_luck import _drawn
from dp_arena.results import TableSessionResult


@dataclass(frozen=True, slots=True)
class RolloutPlace:
    event_seed: int
    section: int = 0
    session: int = 0
    table: int = 0


def table_values(
    rules: TableRules,
    result: TableSessionResult,
    deck_of: Callable[[int], Sequence[int]],
    seats: Sequence[Seat],
    *,
    rollouts: int,
    place: RolloutPlace,
) -> TableSessionResult:
    context = SessionContext(event="rollout")
    for seat in seats:
        seat.begin_session(context)
    for record in result.deals:
        deck = deck_of(record.deal)
        mixes = dict(record.mixes)
        state = new_hand(rules, deck, button=record.button, absent=record.absent)
        for index, text in enumerate(record.actions):
            if index in mixes:
                for action in Mix.parse(mixes[index]).actions:
                    for _ in range(rollouts):
                        _roll(state, action, seats, context)
            state.apply(_drawn(text))
    return result


def _roll(state, first, seats, context):  # type: ignore[no-untyped-def]
    import copy

    state = copy.deepcopy(state)
    for seat, hole in enumerate(state.hole_cards):
        if hole is not None:
            seats[seat].begin_deal(DealStart(seat, state.seat_count, state.button, hole, context))
    answer = first
    while True:
        legal = state.legal_actions()
        if isinstance(answer, (Mix, SeatFault)):
            answer = legal.passive()
        state.apply(legal.or_passive(answer))
        if state.actor is None:
            break
        answer = seats[state.actor].decide(observe(state, state.actor, context))
    assert state.payoffs is not None
    for seat in range(state.seat_count):
        if state.hole_cards[seat] is not None:
            seats[seat].end_deal(
                DealEnd(
                    seat,
                    state.payoffs[seat],
                    tuple(state.payoffs),
                    tuple(state.board),
                    (None,) * state.seat_count,
                    tuple(state.history),
                    context,
                )
            )


if importlib.util.find_spec("dp_arena.ratings.rollouts") is None:
    _fake = types.ModuleType("dp_arena.ratings.rollouts")
    _fake.RolloutPlace = RolloutPlace  # type: ignore[attr-defined]
    _fake.table_values = table_values  # type: ignore[attr-defined]
    sys.modules["dp_arena.ratings.rollouts"] = _fake
