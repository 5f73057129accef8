"""The duplicate cash game (docs/formats.md): mirrored tables play deal after deal, and after
every deal each seat position is settled in money among its players
(:mod:`~dp_arena.tournament.cash.settlement`); players leave between deals and waiting
players take the empty seats (:mod:`~dp_arena.tournament.cash.schedule`).

Options (``[options]``), with their defaults:

- ``tables``, ``seats``: mirrored tables and players per table (6 per table, or half the
  entrants when fewer than 12; as many tables as the entrants fill, at least 2);
- ``deals``: deals in the game at most (36); it ends sooner once no seat position
  holds two players;
- ``settlement``: ``"average"`` (difference from the seat-position average) or
  ``"matchpoints"``;
- ``chip_value_cents``: cents per chip for ``average`` (1); ``matchpoint_cents``: cents
  per matchpoint for ``matchpoints`` (100);
- ``rake_percent``: the house's share of each positive settlement (0);
- ``leave_percent``: chance, drawn with the seed, that a player leaves after a deal (0);
  ``deals_per_player``: deals after which a player leaves (none);
- ``betting``: ``"no-limit"`` or ``"pot-limit"`` (capped no-limit); blinds 10/20, cap
  1000 (the ``[table]`` settings).

Each stretch of deals without a change of players is one table unit per table; the
deck of deal ``j`` of stretch ``s`` is ``deck_for(event_seed, section=1, session=s,
deal=j)``, the same at every table. Bots may see their table's nets (nothing is
eliminated). A standing's ``prize_cents`` is the player's money won or lost, after rake.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dp_arena.engine import Betting
from dp_arena.errors import ConfigError
from dp_arena.results import ScoredResult
from dp_arena.tournament.bounds import MAX_CENTS, MAX_DEALS
from dp_arena.tournament.cash.schedule import CashSchedule, Stretch, schedule_cash_game
from dp_arena.tournament.cash.settlement import apply_rake, settle_average, settle_matchpoints
from dp_arena.tournament.config import EventConfig, EventSettings, FormatDefaults, Problem
from dp_arena.tournament.interface import Runtime, refused_count
from dp_arena.tournament.money import format_cents
from dp_arena.tournament.option_checks import FormatWithOptions, OptionChecks, valid_options
from dp_arena.tournament.outcomes import EventResult, Standing, TableOutcome
from dp_arena.tournament.plan import (
    MAX_SECTION,
    EventPlan,
    PrizeKind,
    PrizePlan,
    SessionPlan,
    one_section,
    plan_details,
    session_plan,
)
from dp_arena.tournament.sessions import section_units
from dp_arena.tournament.standings import groups_by_key, standings_from_groups

__all__ = [
    "CASH",
    "CashDetails",
    "CashFormat",
    "CashPlan",
    "CashPlayer",
    "SeatSettlement",
    "StretchRecord",
]

KNOWN_OPTIONS = (
    "tables",
    "seats",
    "deals",
    "settlement",
    "chip_value_cents",
    "matchpoint_cents",
    "rake_percent",
    "leave_percent",
    "deals_per_player",
    "betting",
)


@dataclass(frozen=True, slots=True)
class CashOptions:
    tables: int | None
    seats: int | None
    deals: int
    settlement: str
    chip_value_cents: int
    matchpoint_cents: int
    rake_basis_points: int
    leave_basis_points: int
    deals_per_player: int | None
    betting: Betting

    def layout(self, entrants: int) -> tuple[int, int]:
        """Tables and seats: the options', or 6 a table (half the entrants when fewer than
        12) at as many tables as the entrants fill, at least 2 and at most 30 players."""
        seats = self.seats or max(2, min(6, entrants // 2))
        tables = self.tables or max(2, min(entrants // seats, MAX_SECTION // seats))
        return tables, seats


def read_options(options: Mapping[str, Any]) -> tuple[CashOptions, list[Problem]]:
    checks = OptionChecks(options, known=KNOWN_OPTIONS)
    result = CashOptions(
        tables=checks.integer("tables", None, low=2, high=15),
        seats=checks.integer("seats", None, low=2, high=10),
        deals=checks.integer("deals", 36, low=1, high=MAX_DEALS) or 36,
        settlement=checks.choice("settlement", "average", ("average", "matchpoints")),
        chip_value_cents=checks.integer("chip_value_cents", 1, low=1, high=MAX_CENTS) or 1,
        matchpoint_cents=checks.integer("matchpoint_cents", 100, low=1, high=MAX_CENTS) or 100,
        rake_basis_points=checks.percent("rake_percent", default=0),
        leave_basis_points=checks.percent("leave_percent", default=0),
        deals_per_player=checks.integer("deals_per_player", None, low=1, high=MAX_DEALS),
        betting=Betting(checks.choice("betting", "no-limit", ("no-limit", "pot-limit"))),
    )
    return result, checks.problems


@dataclass(frozen=True, slots=True)
class SeatSettlement:
    """One seat position after one deal (``deal`` counted over the whole game): its
    players (table order), their nets in chips, their settlements in cents after rake."""

    deal: int
    seat: int
    players: tuple[str, ...]
    nets: tuple[int, ...]
    settlements: tuple[int, ...]
    rakes: tuple[int, ...]

    @property
    def rake_cents(self) -> int:
        return sum(self.rakes)


@dataclass(frozen=True, slots=True)
class StretchRecord:
    """A stretch of deals with the same players: each table's outcome, seats and nets in
    the table's own seat order (not the unit's rotated order)."""

    stretch: int
    first_deal: int
    deals: int
    tables: tuple[TableOutcome, ...]


@dataclass(frozen=True, slots=True)
class CashPlayer:
    player: str
    deals_played: int
    chips_net: int
    money_cents: int
    rake_cents: int


@dataclass(frozen=True, slots=True)
class CashDetails:
    settlement: str
    chip_value_cents: int
    matchpoint_cents: int
    rake_basis_points: int
    stretches: tuple[StretchRecord, ...]
    settlements: tuple[SeatSettlement, ...]
    players: tuple[CashPlayer, ...]
    rake_cents: int


def _resolve(
    config: EventConfig, defaults: FormatDefaults
) -> tuple[EventSettings, CashOptions, CashSchedule, int, int]:
    settings = EventSettings.resolve(config, defaults)
    options = valid_options(read_options, config)
    tables, seats = options.layout(len(config.entrants))
    if tables * seats > MAX_SECTION:
        raise ConfigError(
            f"options: {tables} tables x {seats} seats is more than the {MAX_SECTION} players"
            " a section of mirrored tables may hold",
            field="options.tables",
        )
    schedule = schedule_cash_game(
        [entrant.player for entrant in config.entrants],
        tables=tables,
        seats=seats,
        deals=options.deals,
        seed=config.deck_seed,
        deals_per_player=options.deals_per_player,
        leave_basis_points=options.leave_basis_points,
    )
    return settings, options, schedule, tables, seats


class CashFormat(FormatWithOptions):
    name = "cash"
    title = "Duplicate cash game"
    defaults = FormatDefaults(small_blind=10, big_blind=20, buy_in_cents=0, fee_cents=0)

    read_options = staticmethod(read_options)

    def check_players(self, count: int) -> str | None:
        rule = "a duplicate cash game needs at least 4 players (two tables of two)"
        return refused_count(count, count >= 4, rule)

    def plan(self, config: EventConfig) -> EventPlan:
        settings, options, schedule, tables, seats = _resolve(config, self.defaults)
        if options.settlement == "average":
            how = (
                "difference from the seat-position average at"
                f" {format_cents(options.chip_value_cents)} a chip"
            )
        else:
            how = f"matchpoints at {format_cents(options.matchpoint_cents)} a matchpoint"
        rake = options.rake_basis_points
        waiting = len(config.entrants) - tables * seats
        notes = (
            (
                f"{tables} mirrored tables x {seats}, {schedule.deals} deals in"
                f" {len(schedule.stretches)} stretch(es) without a change of players"
            ),
            f"after every deal each seat position is settled: {how}",
            f"rake {rake // 100}.{rake % 100:02d} % of each positive settlement",
            *([f"{waiting} players wait for a seat at the start"] if waiting > 0 else []),
        )
        return EventPlan.for_config(
            config,
            self.name,
            sessions=tuple(
                _session_plan(stretch, settings, options, tables, seats)
                for stretch in schedule.stretches
            ),
            prizes=PrizePlan(
                pool_cents=0,
                buy_in_cents=settings.buy_in_cents,
                fee_cents=settings.fee_cents,
                kind=PrizeKind.CASH_SETTLEMENT,
                notes=notes,
            ),
            details=CashPlan(options, schedule),
        )

    def play(self, config: EventConfig, plan: EventPlan, runtime: Runtime) -> EventResult:
        details = plan_details(plan, CashPlan)
        options, stretches = details.options, details.schedule.stretches
        entrants = {entrant.player: entrant for entrant in config.entrants}
        units = [
            section_units(
                config,
                session,
                session.sections[0],
                _unit_seating(stretch),
                entrants,
                {},
                runtime.log_dir,
            )
            for stretch, session in zip(stretches, plan.sessions, strict=True)
        ]
        # Every stretch is known before a card is dealt: all of them run as one batch.
        results = runtime.run_units("cash game", units)
        records: list[StretchRecord] = []
        settlements: list[SeatSettlement] = []
        for stretch, stretch_results in zip(stretches, results, strict=True):
            outcomes = tuple(
                _table_outcome(table, row, result, stretch.rotation)
                for table, (row, result) in enumerate(
                    zip(stretch.seating, stretch_results, strict=True), start=1
                )
            )
            records.append(
                StretchRecord(stretch.stretch, stretch.first_deal, stretch.deals, outcomes)
            )
            settlements += _settle_stretch(stretch, outcomes, options)
        players = _players(config, details.schedule, settlements)
        played = CashDetails(
            settlement=options.settlement,
            chip_value_cents=options.chip_value_cents,
            matchpoint_cents=options.matchpoint_cents,
            rake_basis_points=options.rake_basis_points,
            stretches=tuple(records),
            settlements=tuple(settlements),
            players=players,
            rake_cents=sum(settlement.rake_cents for settlement in settlements),
        )
        faults = tuple(
            fault
            for stretch_results in results
            for result in stretch_results
            for fault in result.faults
        )
        return EventResult((), tuple(_standings(players)), faults, played)


@dataclass(frozen=True, slots=True)
class CashPlan:
    """What the cash game plays from (the plan's ``details``): its options and who sits
    where at every deal."""

    options: CashOptions
    schedule: CashSchedule


def _unit_seating(stretch: Stretch) -> tuple[tuple[str | None, ...], ...]:
    """A stretch's seating in its table units' seat order: a unit starts with its seat 0
    on the button, so unit seat ``i`` is table seat ``(i + rotation) mod seats``."""
    seats = len(stretch.seating[0])
    return tuple(
        tuple(row[(index + stretch.rotation) % seats] for index in range(seats))
        for row in stretch.seating
    )


def _session_plan(
    stretch: Stretch, settings: EventSettings, options: CashOptions, tables: int, seats: int
) -> SessionPlan:
    return session_plan(
        stretch.stretch,
        settings,
        betting=options.betting,
        eliminating=False,
        final=True,  # every deal is settled for money: nothing carries on
        sections=one_section(
            players=stretch.players,
            tables=tables,
            seats=seats,
            deals=stretch.deals,
            absent=stretch.absent,
        ),
    )


def _table_outcome(
    table: int, row: tuple[str | None, ...], result: ScoredResult, rotation: int
) -> TableOutcome:
    """The unit's result in the table's own seat order (unit seat ``i`` is table seat
    ``(i + rotation) mod seats``)."""
    seats = len(row)

    def real(unit_seat: int) -> int:
        return (unit_seat + rotation) % seats

    deal_nets = []
    for played in result.deal_nets:
        nets = [0] * seats
        for unit_seat, net in enumerate(played):
            nets[real(unit_seat)] = net
        deal_nets.append(tuple(nets))
    absent = {seat for seat, player in enumerate(row) if player is None}
    return TableOutcome(
        table=table,
        players=row,
        deal_nets=tuple(deal_nets),
        faults=result.faults,
        benched=tuple(
            sorted(real(seat) for seat in result.absent_seats if real(seat) not in absent)
        ),
    )


def _settle_stretch(
    stretch: Stretch, outcomes: tuple[TableOutcome, ...], options: CashOptions
) -> list[SeatSettlement]:
    settlements = []
    seats = len(stretch.seating[0])
    for deal in range(stretch.deals):
        for seat in range(seats):
            seated = [
                (outcome.players[seat], outcome.deal_nets[deal][seat])
                for outcome in outcomes
                if outcome.players[seat] is not None
            ]
            players = tuple(player for player, _ in seated if player is not None)
            nets = tuple(net for _, net in seated)
            if not players:  # only absent players in this seat position: nothing to settle
                continue
            if options.settlement == "average":
                amounts = settle_average(nets, chip_value_cents=options.chip_value_cents)
            else:
                amounts = settle_matchpoints(nets, matchpoint_cents=options.matchpoint_cents)
            raked, rakes = apply_rake(amounts, rake_basis_points=options.rake_basis_points)
            settlements.append(
                SeatSettlement(stretch.first_deal + deal, seat, players, nets, raked, rakes)
            )
    return settlements


def _players(
    config: EventConfig, schedule: CashSchedule, settlements: list[SeatSettlement]
) -> tuple[CashPlayer, ...]:
    chips = dict.fromkeys((entrant.player for entrant in config.entrants), 0)
    money = dict(chips)
    rake = dict(chips)
    for settlement in settlements:
        for player, net, amount, taken in zip(
            settlement.players,
            settlement.nets,
            settlement.settlements,
            settlement.rakes,
            strict=True,
        ):
            chips[player] += net
            money[player] += amount
            rake[player] += taken
    played = dict(schedule.deals_played)
    return tuple(
        CashPlayer(player, played[player], chips[player], money[player], rake[player])
        for player in chips
    )


def _standings(players: tuple[CashPlayer, ...]) -> list[Standing]:
    """Players by money won (after rake), equal amounts sharing places."""
    groups = groups_by_key(players, lambda player: -player.money_cents)
    return standings_from_groups(
        [[player.player for player in group] for group in groups],
        {player.player: player.money_cents for player in players},
        {},
        {},
    )


CASH = CashFormat()
