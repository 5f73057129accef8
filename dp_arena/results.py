"""Results as data: frozen records of faults, deals and table-sessions.

Everything downstream (standings, ratings, leaderboards) is computed from these
records, never from logs. Every record turns into plain JSON with :func:`to_json`, and
back with its ``from_json`` (exactly: ``Record.from_json(to_json(record)) == record``),
so results can cross process boundaries and live in the run's store as plain data. Both
are the one generic walk of :mod:`dp_arena.records` over the records' fields.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dp_arena.records import OMIT_EMPTY, JsonRecord, to_json

__all__ = [
    "DealRecord",
    "Fault",
    "FaultKind",
    "ScoredResult",
    "TableSessionResult",
    "place_text",
    "session_from_records",
    "to_json",
]


class FaultKind(enum.StrEnum):
    """What a bot did wrong. Each fault costs the bot that decision (check or fold)."""

    TIMEOUT = "TIMEOUT"  # no answer within the action's time limit and the time bank
    ERROR = "ERROR"  # the bot raised an exception (in-process) or reported an error
    CRASH = "CRASH"  # the bot's process died
    ILLEGAL = "ILLEGAL"  # a well-formed action the rules refuse
    PROTOCOL = "PROTOCOL"  # a malformed, oversized or out-of-turn message
    LOAD_TIMEOUT = "LOAD_TIMEOUT"  # the bot did not finish loading in time
    LOAD_ERROR = "LOAD_ERROR"  # the bot could not be loaded at all


@dataclass(frozen=True, slots=True)
class Fault(JsonRecord):
    """One fault of one bot at one decision (``deal``/``street`` are ``None`` outside a deal)."""

    kind: FaultKind
    player: str
    seat: int
    deal: int | None
    street: str | None
    detail: str
    substituted: str | None = None  # the action played instead ("check", "fold"), if any


@dataclass(frozen=True, slots=True)
class DealRecord(JsonRecord):
    """One deal at one table: who sat where, what they held, what happened, the nets."""

    deal: int
    button: int
    players: tuple[str, ...]
    hole_cards: tuple[str, ...]  # per seat, e.g. "AsKd"
    board: str  # the board cards dealt, e.g. "2c7d9hJsQs" (fewer if the hand ended early)
    actions: tuple[str, ...]  # compact per-action log, e.g. "3:raise 120", "0:fold"
    nets: tuple[int, ...]  # per seat; sums to zero
    absent: tuple[int, ...] = ()
    # The decisions the dealer drew from a bot's mixed strategy: (index of the action in
    # ``actions``, the mix's text, e.g. "fold 0.25, call 0.75"); left out of the JSON
    # when there are none, as in every deal of bots that answer with single actions.
    mixes: tuple[tuple[int, str], ...] = field(default=(), metadata={OMIT_EMPTY: True})

    # Every seat's value after each action of a mix, where the decision was valued by
    # rollouts (:mod:`dp_arena.rollouts`): (index of the action, per action of the
    # mix in its order the values of every seat as exact fractions' text, e.g. "-31/8");
    # left out of the JSON when there are none.
    values: tuple[tuple[int, tuple[tuple[str, ...], ...]], ...] = field(
        default=(), metadata={OMIT_EMPTY: True}
    )

    def mix_at(self, decision: int) -> str | None:
        """The text of the mix the action at ``decision`` was drawn from, or ``None``."""
        for index, text in self.mixes:
            if index == decision:
                return text
        return None


@dataclass(frozen=True, slots=True)
class TableSessionResult(JsonRecord):
    """A session of deals at one table: per-seat session nets and the net after each deal."""

    table: int
    players: tuple[str, ...]
    deals: tuple[DealRecord, ...]
    faults: tuple[Fault, ...]
    # Seats absent at the session's end: placeholders and benched bots.
    absent_seats: tuple[int, ...]

    @property
    def session_nets(self) -> tuple[int, ...]:
        return tuple(
            sum(deal.nets[seat] for deal in self.deals) for seat in range(len(self.players))
        )


@dataclass(frozen=True, slots=True)
class ScoredResult:
    """What an event keeps of a table-session once it has arrived and been recorded:
    each deal's nets, the faults and the absent seats, which is all a format scores. The
    cards and the actions (most of a result's memory) stay in the hand history and the
    run's store, so an event holding a whole session of these holds a small part of
    what the full results would take."""

    table: int
    players: tuple[str, ...]
    deal_nets: tuple[tuple[int, ...], ...]
    faults: tuple[Fault, ...]
    absent_seats: tuple[int, ...]

    @classmethod
    def of(cls, result: TableSessionResult) -> ScoredResult:
        return cls(
            result.table,
            result.players,
            tuple(deal.nets for deal in result.deals),
            result.faults,
            result.absent_seats,
        )

    @property
    def session_nets(self) -> tuple[int, ...]:
        return tuple(
            sum(nets[seat] for nets in self.deal_nets) for seat in range(len(self.players))
        )


def place_text(session: int, section: int, table: int, deal: int | None = None) -> str:
    """Where a table-session (and a deal of it) is, as people count: ``session 2, section
    1, table 3, deal 7`` for the 0-based table and deal indices of the records (sessions and
    sections are counted from 1 already); a match's tables (session 0) by table alone."""
    where = (
        f"table {table + 1}"
        if session == 0
        else f"session {session}, section {section}, table {table + 1}"
    )
    return where if deal is None else f"{where}, deal {deal + 1}"


# A run directory keeps each session of an event as a part: JSON Lines of records, the
# session's own first, then each section or mini-match followed by its tables (written by
# dp_arena.tournament.documents; docs/results.md). Readers of any layer join them here.


def session_from_records(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A session's object again, from its part's records in order; ``ValueError`` when
    they are not a part's (a first record that is no session, a table before its section
    or mini-match, an unknown record)."""
    session: dict[str, Any] | None = None
    groups: list[dict[str, Any]] = []
    for record in records:
        kind = record.get("record")
        fields = {key: value for key, value in record.items() if key != "record"}
        if session is None:
            if kind != "session":
                raise ValueError(f"the first record is a {kind!r} record, not the session's")
            session = fields
            continue
        if kind in ("section", "match"):
            del fields["session"]
            groups.append({**fields, "table_results": []})
        elif kind == "table":
            if not groups:
                raise ValueError("a table record before any section or mini-match")
            group_kind = "match" if "match" in groups[-1] else "section"
            fields.pop("session", None)
            fields.pop(group_kind, None)
            groups[-1]["table_results"].append(fields)
        else:
            raise ValueError(f"an unknown record {kind!r}")
    if session is None:
        raise ValueError("no records")
    session["matches" if session.get("kind") == "round-robin" else "sections"] = groups
    return session
