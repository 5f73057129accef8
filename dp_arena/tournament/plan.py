"""The plan of an event, before any card is dealt: a pure function of the config.

A plan lists every session with its sections (tables x players per table, absent
seats, deals), betting and blinds, how many of each seat position advance, the
carryover step, the round-robin schedule, and the prizes. Who advances depends on the
cards, but how many do not, so every session's shape is known in advance.

>>> [size for size in section_sizes(70)]
[23, 23, 24]
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, TypeVar

from dp_arena.engine import Betting, TableRules
from dp_arena.results import to_json

if TYPE_CHECKING:
    from dp_arena.tournament.config import EventConfig, EventSettings

__all__ = [
    "MAX_SECTION",
    "EventPlan",
    "PrizeKind",
    "PrizePlan",
    "RoundRobinPlan",
    "SectionPlan",
    "SessionKind",
    "SessionPlan",
    "one_section",
    "plan_details",
    "section_sizes",
    "session_plan",
]

MAX_SECTION = 30  # players in one section (docs/formats.md)
Details = TypeVar("Details")


def section_sizes(players: int) -> list[int]:
    """``players`` divided into ⌈players/30⌉ sections whose sizes differ by at most one,
    smaller sections first (70 → 23, 23, 24)."""
    if players <= 0:
        raise ValueError(f"section_sizes: players must be positive, not {players}")
    count = math.ceil(players / MAX_SECTION)
    base, larger = divmod(players, count)
    return [base] * (count - larger) + [base + 1] * larger


class SessionKind(enum.StrEnum):
    SECTIONS = "sections"  # mirrored tables per section, ranked by seat position
    ROUND_ROBIN = "round-robin"  # heads-up mini-matches (docs/formats.md)


@dataclass(frozen=True, slots=True)
class SectionPlan:
    """One section of a session. ``players`` are entrants; ``absent`` seats are filled
    with absent players. ``advancing`` of each seat position's ``tables`` players go on
    (``None``: no one is eliminated, or the session is the last)."""

    section: int
    players: int
    tables: int
    seats: int
    absent: int
    deals: int
    advancing: int | None

    @property
    def advancing_players(self) -> int | None:
        """How many entrants of the section go on (absent players never do)."""
        return None if self.advancing is None else self.advancing * self.seats


@dataclass(frozen=True, slots=True)
class RoundRobinPlan:
    """A round robin of ``players`` seats (``absent`` of them placeholders): ``schedule``
    lists, per mini-match, the heads-up tables as (seat 0 slot, seat 1 slot)."""

    players: int
    absent: int
    deals_per_match: int
    starting_stack: int
    points_by_place: tuple[int, ...]
    schedule: tuple[tuple[tuple[int, int], ...], ...]

    @property
    def matches(self) -> int:
        return len(self.schedule)

    @property
    def deals(self) -> int:
        return self.matches * self.deals_per_match


@dataclass(frozen=True, slots=True)
class SessionPlan:
    """One session. ``eliminating`` sessions hide other players' standings from the bots
    (docs/formats.md); ``final`` marks the session that decides the prizes; ``carryover_step`` is
    the chips per place carried into the next session (0: none)."""

    session: int
    kind: SessionKind
    players: int
    betting: Betting
    small_blind: int
    big_blind: int
    cap: int
    eliminating: bool
    final: bool
    carryover_step: int
    sections: tuple[SectionPlan, ...] = ()
    round_robin: RoundRobinPlan | None = None

    def rules(self, seats: int) -> TableRules:
        """The rules of this session's tables of ``seats`` players."""
        return TableRules(seats, self.small_blind, self.big_blind, self.betting, self.cap)

    @property
    def advancing(self) -> int | None:
        """Entrants going on to the next session (``None`` after the last)."""
        if self.final:
            return None
        counts = [section.advancing_players for section in self.sections]
        return (
            self.players if any(count is None for count in counts) else sum(c for c in counts if c)
        )


def session_plan(
    number: int,
    settings: EventSettings,
    *,
    betting: Betting,
    eliminating: bool,
    final: bool,
    carryover_step: int = 0,
    sections: Iterable[SectionPlan] = (),
    round_robin: RoundRobinPlan | None = None,
) -> SessionPlan:
    """Session ``number`` at the event's blinds and cap: of ``sections``, whose players
    are the session's, or of a ``round_robin``, whose seats less the absent ones are."""
    sections = tuple(sections)
    if round_robin is None:
        kind, players = SessionKind.SECTIONS, sum(section.players for section in sections)
    else:
        kind, players = SessionKind.ROUND_ROBIN, round_robin.players - round_robin.absent
    return SessionPlan(
        # The event's table settings, the same in every session:
        small_blind=settings.small_blind,
        big_blind=settings.big_blind,
        cap=settings.cap,
        session=number,
        kind=kind,
        players=players,
        betting=betting,
        eliminating=eliminating,
        final=final,
        carryover_step=carryover_step,
        sections=sections,
        round_robin=round_robin,
    )


def one_section(
    *,
    players: int,
    tables: int,
    seats: int,
    deals: int,
    absent: int = 0,
    advancing: int | None = None,
) -> tuple[SectionPlan]:
    """The sections of a session played in one section: ``players`` entrants at
    ``tables`` tables of ``seats``, ``absent`` seats filled with absent players."""
    section = SectionPlan(
        section=1,
        players=players,
        tables=tables,
        seats=seats,
        absent=absent,
        deals=deals,
        advancing=advancing,
    )
    return (section,)


class PrizeKind(enum.StrEnum):
    PLACES = "places"  # cents by final place (regular tournament)
    SEAT_POSITIONS = (
        "seat-positions"  # cents by place in each seat position of the last session (short)
    )
    ROUND_ROBIN_POINTS = (
        "round-robin-points"  # the winner's share plus a share by points (RR Sit n Go)
    )
    SET_AND_HAND_MONEY = "set-and-hand-money"  # each set's pool by seat position (Quick Play)
    CASH_SETTLEMENT = "cash-settlement"  # money settled after every deal (cash game)


@dataclass(frozen=True, slots=True)
class PrizePlan:
    """The prize pool and how it is paid. Every table here adds up to ``pool_cents``."""

    pool_cents: int
    buy_in_cents: int
    fee_cents: int
    kind: PrizeKind
    places: tuple[int, ...] = ()
    seat_positions: tuple[tuple[int, ...], ...] = ()
    winner_cents: int = 0
    points_cents: int = 0
    notes: tuple[str, ...] = ()  # how the money is paid, in words, for kinds without a table

    @property
    def total_cents(self) -> int:
        return (
            sum(self.places)
            + sum(sum(row) for row in self.seat_positions)
            + self.winner_cents
            + self.points_cents
        )


@dataclass(frozen=True, slots=True)
class EventPlan:
    """An event's plan. ``details`` is what a format plays from beyond its sessions and
    prizes, when these do not say it all (Quick Play's sets with their seats and money,
    the cash game's stretches, a freezeout's blind levels): computed once, here, and read
    by the format's play (:func:`plan_details`). It is not part of the plan's JSON, which
    shows what it makes: the sessions and the prizes."""

    event: str
    format: str
    seed: int
    entrants: int
    sessions: tuple[SessionPlan, ...]
    prizes: PrizePlan
    details: Any = None

    @classmethod
    def for_config(
        cls,
        config: EventConfig,
        format_name: str,
        *,
        sessions: Iterable[SessionPlan],
        prizes: PrizePlan,
        details: Any = None,
    ) -> EventPlan:
        """The plan of ``config``'s event in a format: the event's name, deck seed and
        number of entrants from the config, the rest as the format made it."""
        return cls(
            event=config.name,
            format=format_name,
            seed=config.deck_seed,
            entrants=len(config.entrants),
            sessions=tuple(sessions),
            prizes=prizes,
            details=details,
        )

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data: every field but ``details``, and each session's number of
        players going on."""
        data: dict[str, Any] = {
            field.name: to_json(getattr(self, field.name))
            for field in fields(self)
            if field.name != "details"
        }
        for session, session_data in zip(self.sessions, data["sessions"], strict=True):
            session_data["advancing"] = session.advancing
        data["deals"] = self.deals
        return data

    @property
    def deals(self) -> int:
        """Deals dealt in the whole event (each played at every table of its section)."""
        total = 0
        for session in self.sessions:
            total += sum(section.deals for section in session.sections)
            if session.round_robin is not None:
                total += session.round_robin.deals
        return total


def plan_details(plan: EventPlan, kind: type[Details]) -> Details:
    """The ``details`` of a format's plan, which its play reads: of ``kind``, else
    :class:`TypeError` (a plan made by another format)."""
    if not isinstance(plan.details, kind):
        raise TypeError(
            f"the plan of {plan.event!r} ({plan.format}) holds no {kind.__name__}:"
            " it was made by another format"
        )
    return plan.details
