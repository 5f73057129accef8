"""What an event produced, as frozen records: per session, per section and table, the
round-robin matches, the final standings with prizes, and every fault; and what an
event keeps of a session once it is played (its brief, each entrant's totals).

These records are what ``results.json`` is written from (see ``docs/results.md``).
``None`` as a player means an absent player (a placeholder seat).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dp_arena.results import Fault, to_json
from dp_arena.tournament.benching import Benching, benchings

__all__ = [
    "ComparisonOutcome",
    "EntrantTotals",
    "EventResult",
    "MatchOutcome",
    "PlayerSession",
    "RoundRobinOutcome",
    "SectionOutcome",
    "SessionBrief",
    "SessionOutcome",
    "Standing",
    "TableOutcome",
    "session_faults",
]


@dataclass(frozen=True, slots=True)
class TableOutcome:
    """One table of a section: who sat in each seat, each deal's nets, the faults."""

    table: int
    players: tuple[str | None, ...]
    deal_nets: tuple[tuple[int, ...], ...]
    faults: tuple[Fault, ...]
    benched: tuple[int, ...] = ()  # seats of bots that played on as absent players after faults


@dataclass(frozen=True, slots=True)
class PlayerSession:
    """One seat's session: its chips, its rank in its seat position, what it earned.

    ``total_chips`` = ``starting_chips`` + ``carryover_in`` + ``session_net``;
    ``round_nets`` the cumulative session net at the end of each round; ``decided_by``
    the tie-breaker that put it below the player ranked just above it."""

    player: str | None
    table: int
    seat: int
    starting_chips: int
    carryover_in: int
    session_net: int
    total_chips: int
    round_nets: tuple[int, ...]
    rank: int
    decided_by: str | None
    advanced: bool
    carryover_out: int


@dataclass(frozen=True, slots=True)
class SectionOutcome:
    section: int
    tables: int
    seats: int
    deals: int
    table_results: tuple[TableOutcome, ...]
    players: tuple[PlayerSession, ...]  # by seat position, best first


@dataclass(frozen=True, slots=True)
class SessionOutcome:
    """A session of sections. ``carryover`` is what each advancing player takes into the
    next session."""

    session: int
    sections: tuple[SectionOutcome, ...]
    advancing: tuple[str, ...]
    eliminated: tuple[str, ...]
    carryover: tuple[tuple[str, int], ...]
    kind: str = "sections"

    @property
    def tables(self) -> list[TableOutcome]:
        """Every table of the session, section by section."""
        return [table for section in self.sections for table in section.table_results]


@dataclass(frozen=True, slots=True)
class ComparisonOutcome:
    """One seat position of a mini-match: players compared by total chips, and points."""

    seat: int
    players: tuple[str | None, ...]
    total_chips: tuple[int, ...]
    points: tuple[Fraction, ...]


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    match: int
    table_results: tuple[TableOutcome, ...]
    comparisons: tuple[ComparisonOutcome, ...]


@dataclass(frozen=True, slots=True)
class RoundRobinOutcome:
    """A round robin: the draw of players to schedule slots, the mini-matches, each
    player's points and players beaten, and the finishing order in groups (a group of
    several players is a declared tie)."""

    session: int
    slots: tuple[str | None, ...]
    matches: tuple[MatchOutcome, ...]
    points: tuple[tuple[str, Fraction], ...]
    beaten: tuple[tuple[str, int], ...]
    order: tuple[tuple[str, ...], ...]
    kind: str = "round-robin"

    @property
    def tables(self) -> list[TableOutcome]:
        """Every table of the round robin, mini-match by mini-match."""
        return [table for match in self.matches for table in match.table_results]


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's final place: ``place``..``place_to`` when tied with others; the session
    it was eliminated in (``None`` if it played the last session); its prize in cents."""

    player: str
    place: int
    place_to: int
    prize_cents: int
    eliminated_in: int | None = None


@dataclass(frozen=True, slots=True)
class SessionBrief:
    """What an event's summary says of a played session, kept when its whole outcome is
    not: the entrants seated in each section and how many went on (a session of
    sections), the points (a round robin), and every bot benched in it."""

    session: int
    kind: str
    seated: tuple[int, ...] = ()
    advancing: int = 0
    points: tuple[tuple[str, Fraction], ...] = ()
    benched: tuple[Benching, ...] = ()

    @classmethod
    def of(cls, outcome: SessionOutcome | RoundRobinOutcome) -> SessionBrief:
        benched = tuple(benchings([_benched_tables(outcome)]))
        if isinstance(outcome, RoundRobinOutcome):
            return cls(outcome.session, outcome.kind, points=outcome.points, benched=benched)
        return cls(
            outcome.session,
            outcome.kind,
            seated=tuple(
                sum(1 for row in section.players if row.player) for section in outcome.sections
            ),
            advancing=len(outcome.advancing),
            benched=benched,
        )


def _benched_tables(outcome: SessionOutcome | RoundRobinOutcome) -> dict[str, Any]:
    """A session as :func:`benchings` reads it, holding only its tables with a benched
    seat (the others bench no one: converting them would only cost time)."""
    groups, key = (
        (outcome.matches, "match")
        if isinstance(outcome, RoundRobinOutcome)
        else (outcome.sections, "section")
    )
    return {
        "session": outcome.session,
        "kind": outcome.kind,
        "matches" if key == "match" else "sections": [
            {
                key: getattr(group, key),
                "table_results": [to_json(table) for table in group.table_results if table.benched],
            }
            for group in groups
        ],
    }


class EntrantTotals:
    """Each entrant's totals over the sessions added so far: sessions and table-sessions
    played, table-deals, chips won (the sum of its nets) and faults. A few integers an
    entrant, whatever the number of sessions: what ``results.json``'s ``totals`` needs
    of every table once its session is over."""

    COUNTS = ("sessions", "table_sessions", "deals", "net_chips", "faults")

    __slots__ = ("_counts", "_index")

    def __init__(self, players: Sequence[str]) -> None:
        self._index = {player: index for index, player in enumerate(players)}
        self._counts = {name: array("q", bytes(8 * len(self._index))) for name in self.COUNTS}

    def add(self, outcome: SessionOutcome | RoundRobinOutcome) -> None:
        """Count a played session's tables (players that are not entrants are left out)."""
        index = self._index
        table_sessions, deals = self._counts["table_sessions"], self._counts["deals"]
        net_chips, faults = self._counts["net_chips"], self._counts["faults"]
        seen: set[int] = set()
        for table in outcome.tables:
            for seat, player in enumerate(table.players):
                where = index.get(player) if player is not None else None
                if where is None:
                    continue
                table_sessions[where] += 1
                deals[where] += len(table.deal_nets)
                net_chips[where] += sum(nets[seat] for nets in table.deal_nets)
                seen.add(where)
            for fault in table.faults:
                where = index.get(fault.player)
                if where is not None:
                    faults[where] += 1
        sessions = self._counts["sessions"]
        for where in seen:
            sessions[where] += 1

    def rows(self) -> list[dict[str, Any]]:
        """``results.json``'s ``totals``: one row an entrant, in the order given."""
        counts = [(name, self._counts[name]) for name in self.COUNTS]
        return [
            {"player": player, **{name: column[where] for name, column in counts}}
            for player, where in self._index.items()
        ]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EntrantTotals):
            return NotImplemented
        return self._index == other._index and self._counts == other._counts

    __hash__ = None  # type: ignore[assignment]  # counts change as sessions are added


@dataclass(frozen=True, slots=True)
class EventResult:
    """What an event produced. ``sessions`` holds each session's whole outcome only when
    the event kept them (:attr:`~dp_arena.tournament.interface.Runtime.keep_sessions`;
    a run directory has them in its parts instead); ``briefs`` and ``totals`` are what
    the summary needs of each session, kept always (``None`` totals: the format played
    no sessions, and every entrant's are zero)."""

    sessions: tuple[SessionOutcome | RoundRobinOutcome, ...]
    standings: tuple[Standing, ...]
    faults: tuple[Fault, ...]
    details: Any = None  # a format's own records (Quick Play money, cash settlements, ...)
    # Hands a format dealt itself rather than in table units (the classic freezeout's
    # tables are coupled hand by hand); ``None`` when every deal was a table unit's.
    hands_played: int | None = None
    briefs: tuple[SessionBrief, ...] = ()
    totals: EntrantTotals | None = None


def session_faults(sessions: Iterable[SessionOutcome | RoundRobinOutcome]) -> tuple[Fault, ...]:
    """Every fault at every table of ``sessions``, in order."""
    return tuple(
        fault for outcome in sessions for table in outcome.tables for fault in table.faults
    )
