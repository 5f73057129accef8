"""Quick Play (docs/formats.md): sets of deals at 2 to 5 mirrored tables of 2 to 6 players,
capped no-limit 10/20, each set's pool paid as set money and hand money per seat
position; continuous play (:mod:`~dp_arena.tournament.quickplay.schedule`); and the
players' money kept in the credit game balance ledger
(:mod:`~dp_arena.tournament.quickplay.ledger`).

Options (``[options]`` of the config), with their defaults:

- ``seats``: players per table, 2 to 6 (4; 2 with fewer than 8 entrants);
- ``set_percent``: share of each pool paid as set money, the rest is hand money (50);
- ``rake_percent``: the house's share of each amount won, two decimals at most (0);
- ``sets``: sets each player plays before leaving (1); ``sets_by_player``:
  ``{ name = sets }`` for players with their own number;
- ``leave_percent``: chance, drawn with the seed, that a player leaves after a set (0);
- ``arrivals``: entrants joining before round 1, during round 1, ... (all before round 1);
- ``max_rounds``: rounds of sets at most (100);
- ``ledger``: the ledger's SQLite file, shared between events, relative to the config
  (``ledger.sqlite`` in the run directory);
- ``balance_cents``: main balance opened for a player new to the ledger (100 buy-ins);
- ``credit_cents``: moved into the credit balance on joining, and again whenever it
  cannot pay the next buy-in (the buy-ins of all the player's sets).

Deals per set by players per table: 2 → 4 (``[table] deals = { "2" = 6 }`` for 6),
3 → 6, 4 → 4, 5 → 5, 6 → 6. The deck of deal ``d`` of set ``n`` is
``deck_for(event_seed, section=1, session=n, deal=d)``.

Before any card is dealt every player's main balance must cover the buy-ins of all its
planned sets (winnings only add to it), so no one is ever short of a buy-in and the
schedule stays the plan. Each set is settled in one ledger transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from dp_arena.engine import Betting
from dp_arena.errors import ConfigError
from dp_arena.results import TableSessionResult
from dp_arena.tournament.bounds import (
    MAX_PLAYER_SETS,
)
from dp_arena.tournament.config import EventConfig, EventSettings, FormatDefaults, Problem
from dp_arena.tournament.describe import SummaryParts
from dp_arena.tournament.interface import EventFormat, Runtime
from dp_arena.tournament.money import format_cents
from dp_arena.tournament.option_checks import plan_problems
from dp_arena.tournament.outcomes import EventResult, SectionOutcome, SessionOutcome, Standing
from dp_arena.tournament.plan import (
    EventPlan,
    PrizeKind,
    PrizePlan,
    SectionPlan,
    SessionKind,
    SessionPlan,
)
from dp_arena.tournament.quickplay.ledger import Ledger
from dp_arena.tournament.quickplay.money import set_awards, set_money
from dp_arena.tournament.quickplay.options import QuickPlayOptions, read_options
from dp_arena.tournament.quickplay.purses import PlayerMoney, Purses
from dp_arena.tournament.quickplay.records import QuickPlayDetails, SetRecord
from dp_arena.tournament.quickplay.schedule import PlannedSet, QuickPlaySchedule, schedule_sets
from dp_arena.tournament.quickplay.summary import summary_parts
from dp_arena.tournament.sessions import score_section, section_units, table_outcome
from dp_arena.tournament.units import TableUnit

__all__ = ["QUICK_PLAY", "QuickPlayFormat"]


def _settings_and_schedule(
    config: EventConfig, defaults: FormatDefaults
) -> tuple[EventSettings, QuickPlayOptions, int, QuickPlaySchedule]:
    settings = EventSettings.resolve(config, defaults)
    options, problems = read_options(dict(config.options))
    if problems:  # a config from parse_config has none; this guards hand-made configs
        raise ConfigError(f"options.{problems[0]}", field=f"options.{problems[0].field}")
    players = [entrant.player for entrant in config.entrants]
    seats = options.seats_for(len(players))
    if len(players) < 2 * seats:
        raise ConfigError(
            f"entrants: Quick Play at {seats} per table needs at least {2 * seats} entrants"
            f" (two tables), not {len(players)}; set options.seats",
            field="entrants",
        )
    unknown = sorted(set(dict(options.sets_by_player)) - set(players))
    if unknown:
        raise ConfigError(
            f"options.sets_by_player: {', '.join(unknown)} not among the entrants",
            field="options.sets_by_player",
        )
    if options.arrivals is not None and sum(options.arrivals) != len(players):
        raise ConfigError(
            f"options.arrivals: adds up to {sum(options.arrivals)}, not the"
            f" {len(players)} entrants",
            field="options.arrivals",
        )
    # A player plays at most one set a round: the plan holds this many player-sets at most.
    sets_of = dict(options.sets_by_player)
    most = sum(min(sets_of.get(player, options.sets), options.max_rounds) for player in players)
    if most > MAX_PLAYER_SETS:
        raise ConfigError(
            f"options.sets: the {len(players):_} entrants' sets add up to {most:_} (each"
            " entrant's sets, or options.max_rounds if fewer); a Quick Play plans at most"
            f" {MAX_PLAYER_SETS:_}: lower options.sets, sets_by_player or max_rounds",
            field="options.sets",
        )
    schedule = schedule_sets(
        players,
        seats=seats,
        deals=settings.deals_for(seats),
        seed=config.deck_seed,
        sets=options.sets,
        sets_by_player=dict(options.sets_by_player),
        leave_basis_points=options.leave_basis_points,
        arrivals=options.arrivals,
        max_rounds=options.max_rounds,
    )
    return settings, options, seats, schedule


def _session_plan(planned: PlannedSet, settings: EventSettings) -> SessionPlan:
    players = planned.tables * planned.seats
    return SessionPlan(
        session=planned.set_number,
        kind=SessionKind.SECTIONS,
        players=players,
        betting=Betting.NO_LIMIT,
        small_blind=settings.small_blind,
        big_blind=settings.big_blind,
        cap=settings.cap,
        # Every set decides money: like a last session, standings are hidden from bots.
        eliminating=True,
        final=True,
        carryover_step=0,
        sections=(
            SectionPlan(
                section=1,
                players=players,
                tables=planned.tables,
                seats=planned.seats,
                absent=0,
                deals=planned.deals,
                advancing=None,
            ),
        ),
    )


class QuickPlayFormat(EventFormat):
    name = "quickplay"
    title = "Quick Play"
    defaults = FormatDefaults(
        small_blind=10,
        big_blind=20,
        buy_in_cents=200,
        fee_cents=0,
        deals=((2, 4), (3, 6), (4, 4), (5, 5), (6, 6)),
    )

    def check_players(self, count: int) -> str | None:
        if count < 4:
            return f"Quick Play needs at least 4 entrants (two heads-up tables), not {count}"
        return None

    def check_options(self, options: Mapping[str, Any]) -> list[Problem]:
        return read_options(options)[1]

    def check_config(self, config: EventConfig) -> list[Problem]:
        """Problems only the whole config shows (run by the config check)."""
        return plan_problems(self.plan, config)

    def plan(self, config: EventConfig) -> EventPlan:
        settings, options, seats, schedule = _settings_and_schedule(config, self.defaults)
        notes = []
        pool = 0
        for planned in schedule.sets:
            money = set_money(
                players=len(planned.players),
                seats=seats,
                deals=planned.deals,
                buy_in_cents=settings.buy_in_cents,
                set_basis_points=options.set_basis_points,
            )
            pool += money.pool_cents
            notes.append(
                f"set {planned.set_number} (round {planned.round}, contest {planned.contest}):"
                f" {planned.tables} x {seats}, {planned.deals} deals, pool"
                f" {format_cents(money.pool_cents)}: set money"
                f" {format_cents(money.set_money[0])} and hand money"
                f" {format_cents(money.hand_money[0][0])} a deal per seat position"
            )
        rake = options.rake_basis_points
        notes.append(f"rake {rake // 100}.{rake % 100:02d} % of each amount won")
        waiting = [player for player, count in schedule.sets_played if count == 0]
        if waiting:
            notes.append(f"never seated (no two tables to fill): {', '.join(waiting)}")
        return EventPlan(
            event=config.name,
            format=self.name,
            seed=config.deck_seed,
            entrants=len(config.entrants),
            sessions=tuple(_session_plan(planned, settings) for planned in schedule.sets),
            prizes=PrizePlan(
                pool_cents=pool,
                buy_in_cents=settings.buy_in_cents,
                fee_cents=settings.fee_cents,
                kind=PrizeKind.SET_AND_HAND_MONEY,
                notes=tuple(notes),
            ),
        )

    def summary_parts(self, result: EventResult, absent_players: frozenset[str]) -> SummaryParts:
        return summary_parts(result, result.details, absent_players)

    def play(self, config: EventConfig, plan: EventPlan, runtime: Runtime) -> EventResult:
        settings, options, seats, schedule = _settings_and_schedule(config, self.defaults)
        entrants = {entrant.player: entrant for entrant in config.entrants}
        by_round: dict[int, list[PlannedSet]] = {}
        for planned in schedule.sets:
            by_round.setdefault(planned.round, []).append(planned)
        records: list[SetRecord] = []
        outcomes: list[SessionOutcome] = []
        with Ledger(_ledger_path(config, options, runtime)) as ledger:
            purses = Purses(ledger, config, options, schedule, settings.buy_in_cents, runtime)
            for round_number, round_sets in sorted(by_round.items()):
                for planned in round_sets:
                    purses.before_set(planned)
                session_plans = [_session_plan(planned, settings) for planned in round_sets]
                units: list[TableUnit] = []
                spans = []
                for planned, session_plan in zip(round_sets, session_plans, strict=True):
                    section_list = section_units(
                        config,
                        session_plan,
                        session_plan.sections[0],
                        planned.seating,
                        entrants,
                        {},
                        runtime.log_dir,
                    )
                    spans.append((len(units), len(units) + len(section_list)))
                    units += section_list
                runtime.observer.units_started(f"round {round_number}", units)
                results = runtime.executor.run(units, _observe(runtime, units))
                for planned, session_plan, (start, end) in zip(
                    round_sets, session_plans, spans, strict=True
                ):
                    set_units, set_results = units[start:end], results[start:end]
                    money = set_money(
                        players=len(planned.players),
                        seats=seats,
                        deals=planned.deals,
                        buy_in_cents=settings.buy_in_cents,
                        set_basis_points=options.set_basis_points,
                    )
                    awards = set_awards(
                        money,
                        planned.seating,
                        [[deal.nets for deal in result.deals] for result in set_results],
                        starting_stack=session_plan.cap * planned.deals,
                        rake_basis_points=options.rake_basis_points,
                    )
                    purses.settle(planned, awards)
                    records.append(
                        SetRecord(
                            set_number=planned.set_number,
                            round=planned.round,
                            contest=planned.contest,
                            seating=planned.seating,
                            deals=planned.deals,
                            pool_cents=money.pool_cents,
                            set_money=money.set_money,
                            hand_money=money.hand_money,
                            awards=tuple(awards),
                            rake_cents=sum(award.rake_cents for award in awards),
                        )
                    )
                    section = SectionOutcome(
                        section=1,
                        tables=planned.tables,
                        seats=seats,
                        deals=planned.deals,
                        table_results=tuple(
                            table_outcome(unit, result)
                            for unit, result in zip(set_units, set_results, strict=True)
                        ),
                        players=tuple(
                            score_section(
                                config,
                                session_plan,
                                session_plan.sections[0],
                                planned.seating,
                                set_results,
                                {},
                            )
                        ),
                    )
                    outcome = SessionOutcome(planned.set_number, (section,), (), (), ())
                    outcomes.append(outcome)
                    runtime.observer.session_finished(outcome)
            details = QuickPlayDetails(
                game=purses.game,
                sets=tuple(records),
                players=purses.money(),
                rake_cents=sum(record.rake_cents for record in records),
                rake_basis_points=options.rake_basis_points,
                ledger_total_before_cents=purses.total_before,
                ledger_total_after_cents=ledger.total(),
            )
        faults = tuple(
            fault
            for outcome in outcomes
            for section_outcome in outcome.sections
            for table in section_outcome.table_results
            for fault in table.faults
        )
        return EventResult(tuple(outcomes), tuple(_standings(details.players)), faults, details)


def _observe(runtime: Runtime, units: list[TableUnit]) -> Callable[[int, TableSessionResult], None]:
    """Tells the run's observer of each unit's result as it arrives."""

    def on_result(index: int, result: TableSessionResult) -> None:
        runtime.observer.unit_finished(units[index], result)

    return on_result


def _ledger_path(config: EventConfig, options: QuickPlayOptions, runtime: Runtime) -> str:
    """The option's file (relative to the config), else the run directory's, else memory."""
    if options.ledger is not None:
        path = Path(options.ledger).expanduser()
        if not path.is_absolute() and config.source is not None:
            path = Path(config.source).resolve().parent / path
        return str(path)
    if runtime.log_dir is not None:
        return str(Path(runtime.log_dir).parent / "ledger.sqlite")
    return ":memory:"


def _standing_key(money: PlayerMoney) -> tuple[int, int]:
    return -money.won_cents, money.buy_ins_cents


def _standings(players: tuple[PlayerMoney, ...]) -> list[Standing]:
    """Players by the money they won (after the rake); equal winnings, the one that paid
    fewer buy-ins (the better profit) first; equal in both, they share the place, listed
    in config order. A standing's prize is what the player won."""
    ordered = sorted(players, key=_standing_key)  # stable: config order
    standings = []
    index = 0
    while index < len(ordered):
        key = _standing_key(ordered[index])
        group = [money for money in ordered[index:] if _standing_key(money) == key]
        for money in group:
            standings.append(Standing(money.player, index + 1, index + len(group), money.won_cents))
        index += len(group)
    return standings


QUICK_PLAY = QuickPlayFormat()
