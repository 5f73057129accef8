"""Results as data: frozen records of faults, deals and table-sessions.

Everything downstream (standings, ratings, leaderboards) is computed from these
records, never from logs. Every record turns into plain JSON with :func:`to_json`, and
back with its ``from_json`` (exactly: ``Record.from_json(to_json(record)) == record``),
so results can cross process boundaries and live in the run's store as plain data.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

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
class Fault:
    """One fault of one bot at one decision (``deal``/``street`` are ``None`` outside a deal)."""

    kind: FaultKind
    player: str
    seat: int
    deal: int | None
    street: str | None
    detail: str
    substituted: str | None = None  # the action played instead ("check", "fold"), if any

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Fault:
        return cls(
            kind=FaultKind(data["kind"]),
            player=data["player"],
            seat=data["seat"],
            deal=data["deal"],
            street=data["street"],
            detail=data["detail"],
            substituted=data.get("substituted"),
        )


@dataclass(frozen=True, slots=True)
class DealRecord:
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
    mixes: tuple[tuple[int, str], ...] = field(default=(), metadata={"omit_empty": True})

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DealRecord:
        return cls(
            deal=data["deal"],
            button=data["button"],
            players=tuple(data["players"]),
            hole_cards=tuple(data["hole_cards"]),
            board=data["board"],
            actions=tuple(data["actions"]),
            nets=tuple(data["nets"]),
            absent=tuple(data.get("absent", ())),
            mixes=tuple((decision, text) for decision, text in data.get("mixes", ())),
        )

    def mix_at(self, decision: int) -> str | None:
        """The text of the mix the action at ``decision`` was drawn from, or ``None``."""
        for index, text in self.mixes:
            if index == decision:
                return text
        return None


@dataclass(frozen=True, slots=True)
class TableSessionResult:
    """A session of deals at one table: per-seat session nets and the net after each deal."""

    table: int
    players: tuple[str, ...]
    deals: tuple[DealRecord, ...]
    faults: tuple[Fault, ...]
    # Seats absent at the session's end: placeholders and benched bots.
    absent_seats: tuple[int, ...]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableSessionResult:
        return cls(
            table=data["table"],
            players=tuple(data["players"]),
            deals=tuple(DealRecord.from_json(deal) for deal in data["deals"]),
            faults=tuple(Fault.from_json(fault) for fault in data["faults"]),
            absent_seats=tuple(data["absent_seats"]),
        )

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


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # a record type's field names, looked up once
# A record type's fields written only when not empty (``metadata={"omit_empty": True}``):
# a field added later keeps the JSON of every record without it byte for byte.
_OMIT_EMPTY: dict[type, frozenset[str]] = {}
# Values that are their own JSON (exactly these types: an enum of str is not one), taken
# as they are without a call: nearly every value of a result is one.
_PLAIN = frozenset((str, int, float, bool, type(None)))


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


def to_json(record: Any) -> Any:
    """Plain JSON data (dicts, lists, str, int, None) of any record or nest of records."""
    names = _FIELD_NAMES.get(type(record))
    if names is None and dataclasses.is_dataclass(record) and not isinstance(record, type):
        fields = dataclasses.fields(record)
        names = _FIELD_NAMES[type(record)] = tuple(field.name for field in fields)
        _OMIT_EMPTY[type(record)] = frozenset(
            field.name for field in fields if field.metadata.get("omit_empty")
        )
    if names is not None:
        data = {}
        omitted = _OMIT_EMPTY[type(record)]
        for name in names:
            value = getattr(record, name)
            if not value and name in omitted:
                continue
            data[name] = value if type(value) in _PLAIN else to_json(value)
        return data
    if isinstance(record, enum.Enum):
        return record.value
    if isinstance(record, (list, tuple)):
        return [item if type(item) in _PLAIN else to_json(item) for item in record]
    if isinstance(record, dict):
        return {str(key): to_json(value) for key, value in record.items()}
    return record


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
