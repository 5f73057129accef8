"""What an event produced, as frozen records: per session, per section and table, the
round-robin matches, the final standings with prizes, and every fault.

These records are what ``results.json`` is written from (see ``docs/results.md``).
``None`` as a player means an absent player (a placeholder seat).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dp_arena.results import Fault

__all__ = [
    "ComparisonOutcome",
    "EventResult",
    "MatchOutcome",
    "PlayerSession",
    "RoundRobinOutcome",
    "SectionOutcome",
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
class EventResult:
    sessions: tuple[SessionOutcome | RoundRobinOutcome, ...]
    standings: tuple[Standing, ...]
    faults: tuple[Fault, ...]
    details: Any = None  # a format's own records (Quick Play money, cash settlements, ...)
    # Hands a format dealt itself rather than in table units (the classic freezeout's
    # tables are coupled hand by hand); ``None`` when every deal was a table unit's.
    hands_played: int | None = None


def session_faults(sessions: Iterable[SessionOutcome | RoundRobinOutcome]) -> tuple[Fault, ...]:
    """Every fault at every table of ``sessions``, in order."""
    return tuple(
        fault for outcome in sessions for table in outcome.tables for fault in table.faults
    )
