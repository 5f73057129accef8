"""The unit of work: one table for one session, as plain frozen data, and the executors
that run it.

A :class:`TableUnit` holds everything a worker needs and nothing it must share: the
table rules, who sits where (agent specs, placeholders), the deck ids, the deals, the
starting chips and what the bots may see. :func:`run_unit` seats the bots itself (fresh
for every unit, so mirrored copies of a bot never share state), plays the session with
:func:`dp_arena.agents.play_table_session` and returns the
:class:`~dp_arena.results.TableSessionResult`. Only plain data crosses this boundary,
so a unit can run in this process (:class:`SerialExecutor`) or on a Ray worker, in any
order, with the same result. The event formats, the duplicate match
(:func:`dp_arena.match.match_units`) and the server's ladder all play through it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from dp_arena.agents import (
    AbsentSeat,
    FaultPolicy,
    Seat,
    SessionContext,
    TableSession,
    play_table_session,
)
from dp_arena.engine import Betting, HandState, TableRules
from dp_arena.results import TableSessionResult
from dp_arena.sandbox import close_seats, open_seat, prepare
from dp_arena.sandbox.limits import Limits

# Where a worker found bots whose files are not at their spec's paths on its machine:
# spec -> (the spec to seat, the folder a command bot runs in or None). Results do not
# depend on it: the files are the same, only their place differs.
Located = Mapping[str, tuple[str, str | None]]

__all__ = [
    "Executor",
    "Located",
    "OnResult",
    "SeatAssignment",
    "SeatOpener",
    "SerialExecutor",
    "TableUnit",
    "open_player_seat",
    "open_unit_seats",
    "prepare_units",
    "run_unit",
]


@dataclass(frozen=True, slots=True)
class SeatAssignment:
    """Who sits in a seat: an entrant (``spec`` is its resolved agent spec) or, with
    ``spec`` ``None``, an absent player (a placeholder)."""

    player: str
    spec: str | None = None
    trusted: bool = False

    @property
    def absent(self) -> bool:
        return self.spec is None


@dataclass(frozen=True, slots=True)
class TableUnit:
    """One table of one section for one session: the unit every format is made of.

    The deck of deal ``d`` is ``deck_for(event_seed, section, session, d)``: every table
    of a section shares it. ``limits`` are sandbox limit overrides as ``(name, value)``
    pairs; ``log_dir`` is where sandboxed bots' logs go (one folder per player).
    """

    event: str
    event_seed: int
    session: int
    section: int
    table: int
    rules: TableRules
    deals: int
    seats: tuple[SeatAssignment, ...]
    starting_chips: tuple[int, ...]
    eliminating: bool
    max_faults: int = 3
    limits: tuple[tuple[str, Any], ...] = ()
    log_dir: str | None = None

    def __post_init__(self) -> None:
        count = self.rules.seat_count
        if len(self.seats) != count or len(self.starting_chips) != count:
            raise ValueError(
                f"table unit: {count} seats need {count} assignments and starting chips"
            )
        if self.deals <= 0:
            raise ValueError(f"table unit: deals must be positive, not {self.deals}")

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(seat.player for seat in self.seats)

    @property
    def key(self) -> tuple[int, int, int]:
        """``(session, section, table)``: unique within an event."""
        return (self.session, self.section, self.table)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data; :meth:`from_json` gives the unit back exactly."""
        rules = self.rules
        return {
            "event": self.event,
            "event_seed": self.event_seed,
            "session": self.session,
            "section": self.section,
            "table": self.table,
            "rules": {
                "seat_count": rules.seat_count,
                "small_blind": rules.small_blind,
                "big_blind": rules.big_blind,
                "betting": rules.betting.value,
                "cap": rules.cap,
            },
            "deals": self.deals,
            "seats": [
                {"player": seat.player, "spec": seat.spec, "trusted": seat.trusted}
                for seat in self.seats
            ],
            "starting_chips": list(self.starting_chips),
            "eliminating": self.eliminating,
            "max_faults": self.max_faults,
            "limits": [[name, value] for name, value in self.limits],
            "log_dir": self.log_dir,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableUnit:
        rules = data["rules"]
        return cls(
            event=data["event"],
            event_seed=data["event_seed"],
            session=data["session"],
            section=data["section"],
            table=data["table"],
            rules=TableRules(
                rules["seat_count"],
                rules["small_blind"],
                rules["big_blind"],
                Betting(rules["betting"]),
                rules["cap"],
            ),
            deals=data["deals"],
            seats=tuple(
                SeatAssignment(seat["player"], seat["spec"], seat["trusted"])
                for seat in data["seats"]
            ),
            starting_chips=tuple(data["starting_chips"]),
            eliminating=data["eliminating"],
            max_faults=data["max_faults"],
            limits=tuple((name, value) for name, value in data["limits"]),
            log_dir=data["log_dir"],
        )

    @property
    def absent_seats(self) -> tuple[int, ...]:
        return tuple(index for index, seat in enumerate(self.seats) if seat.absent)


def open_player_seat(
    spec: str,
    player: str,
    *,
    trusted: bool,
    limits: tuple[tuple[str, Any], ...] = (),
    log_dir: str | None = None,
    bot_dir: str | None = None,
) -> Seat:
    """The seat of an entrant: in-process when trusted (the built-ins), sandboxed
    otherwise, with the event's limit overrides and its logs under ``log_dir/player``
    (``bot_dir``: the folder a command bot runs in, when not its script's). A bot that
    cannot load gets a seat that reports it (never an exception)."""
    return open_seat(
        spec,
        name=player,
        trusted=trusted,
        limits=_limits(limits) if limits else None,
        log_dir=None if log_dir is None else _folder(log_dir) / player,
        bot_dir=None if bot_dir is None else _folder(bot_dir),
    )


@functools.lru_cache(maxsize=64)
def _folder(path: str) -> Path:
    """``Path(path)``, made once per folder: an event opens tens of thousands of seats
    under one log folder, and a path is slow to make."""
    return Path(path)


@functools.lru_cache(maxsize=64)
def _limits(changes: tuple[tuple[str, Any], ...]) -> Limits:
    """The event's limits, validated once (an event has one set; each seat reads it)."""
    return Limits().with_changes(**dict(changes))


# Told of each result as it arrives (its unit's index in the batch, the result): for
# progress displays, and for the run's store.
OnResult = Callable[[int, TableSessionResult], None]

# An entrant's seat opened otherwise than :func:`open_player_seat` opens it (the match's
# own seat factory); never called for an absent player.
SeatOpener = Callable[[SeatAssignment], Seat]


def _open_seat(
    seat: SeatAssignment, unit: TableUnit, located: Located, opener: SeatOpener | None
) -> Seat:
    if seat.spec is None:
        return AbsentSeat(seat.player)
    if opener is not None:
        return opener(seat)
    spec, bot_dir = located.get(seat.spec, (seat.spec, None))
    return open_player_seat(
        spec,
        seat.player,
        trusted=seat.trusted,
        limits=unit.limits,
        log_dir=unit.log_dir,
        bot_dir=bot_dir,
    )


def open_unit_seats(
    unit: TableUnit, located: Located | None = None, opener: SeatOpener | None = None
) -> list[Seat]:
    """A fresh seat for every seat of ``unit``, as a run opens them: an absent player's
    placeholder, or the entrant's bot (in-process when trusted, sandboxed otherwise; from
    where ``located`` says, or by ``opener``). On an error the seats opened are closed."""
    seats: list[Seat] = []
    try:
        for assignment in unit.seats:
            seats.append(_open_seat(assignment, unit, located or {}, opener))
    except BaseException:
        close_seats(seats)
        raise
    return seats


def prepare_units(units: Sequence[TableUnit], located: Located | None = None) -> None:
    """Get this process ready to seat the sandboxed bots of ``units`` again and again
    (their warm templates started side by side, spare seats kept: see
    :func:`dp_arena.sandbox.prepare`). Results do not depend on it."""
    located = located or {}
    by_limits: dict[tuple[tuple[str, Any], ...], list[tuple[str, bool]]] = {}
    for unit in units:
        bots = by_limits.setdefault(unit.limits, [])
        for seat in unit.seats:
            if seat.spec is None:
                continue
            spec, bot_dir = located.get(seat.spec, (seat.spec, None))
            if bot_dir is None:  # a command bot has no template
                bots.append((spec, seat.trusted))
    for limits, bots in by_limits.items():
        prepare(bots, limits=Limits().with_changes(**dict(limits)) if limits else None)


def run_unit(
    unit: TableUnit,
    located: Located | None = None,
    *,
    on_deal: Callable[[int, HandState], None] | None = None,
    wrap_seat: Callable[[int, Seat], Seat] | None = None,
    open_seat: SeatOpener | None = None,
) -> TableSessionResult:
    """Seat the bots of ``unit`` (from where ``located`` says, for those it names), play
    its session and return the result; ``on_deal`` sees each finished hand.
    ``wrap_seat(seat_index, seat)``: the seat the table talks to instead of each
    entrant's (a replay's :class:`~dp_arena.agents.recorded_seat.RecordedSeat`);
    ``open_seat(assignment)``: each entrant's seat, instead of :func:`open_player_seat`'s."""
    seats = open_unit_seats(unit, located, open_seat)
    try:
        table = TableSession(
            seats
            if wrap_seat is None
            else [
                seat if assignment.absent else wrap_seat(index, seat)
                for index, (assignment, seat) in enumerate(zip(unit.seats, seats, strict=True))
            ],
            unit.players,
            absent=unit.absent_seats,
            policy=FaultPolicy(max_faults=unit.max_faults),
        )
        context = SessionContext(
            event=unit.event,
            section=unit.section,
            session=unit.session,
            eliminating=unit.eliminating,
        )
        return play_table_session(
            table,
            unit.rules,
            event_seed=unit.event_seed,
            section=unit.section,
            session=unit.session,
            deals=unit.deals,
            context=context,
            starting_chips=unit.starting_chips,
            table_index=unit.table,
            on_deal=on_deal,
        )
    finally:
        close_seats(seats)


class Executor(Protocol):
    """Runs table units and returns their results in the order of ``units``, whatever
    the order they finish in. ``on_result(index, result)`` is told of each result as it
    arrives (for progress displays)."""

    def run(
        self, units: Sequence[TableUnit], on_result: OnResult | None = None
    ) -> Sequence[TableSessionResult]: ...


class SerialExecutor:
    """Runs every unit in this process, one after the other."""

    def run(
        self, units: Sequence[TableUnit], on_result: OnResult | None = None
    ) -> list[TableSessionResult]:
        results = []
        prepare_units(units)
        for index, unit in enumerate(units):
            result = run_unit(unit)
            if on_result is not None:
                on_result(index, result)
            results.append(result)
        return results
