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

from dataclasses import dataclass
from pathlib import Path

from dp_arena.engine import Betting
from dp_arena.errors import ConfigError
from dp_arena.results import ScoredResult
from dp_arena.tournament.bounds import MAX_PLAYER_SETS
from dp_arena.tournament.config import EventConfig, EventSettings, FormatDefaults
from dp_arena.tournament.describe import SummaryParts
from dp_arena.tournament.interface import Runtime, refused_count
from dp_arena.tournament.money import format_cents
from dp_arena.tournament.option_checks import FormatWithOptions, valid_options
from dp_arena.tournament.outcomes import EventResult, SessionOutcome, Standing
from dp_arena.tournament.plan import (
    EventPlan,
    PrizeKind,
    PrizePlan,
    SessionPlan,
    one_section,
    plan_details,
    session_plan,
)
from dp_arena.tournament.played import PlayedSessions
from dp_arena.tournament.quickplay.ledger import Ledger
from dp_arena.tournament.quickplay.money import SetMoney, set_awards, set_money
from dp_arena.tournament.quickplay.options import QuickPlayOptions, read_options
from dp_arena.tournament.quickplay.purses import PlayerMoney, Purses
from dp_arena.tournament.quickplay.records import QuickPlayDetails, SetRecord
from dp_arena.tournament.quickplay.schedule import PlannedSet, QuickPlaySchedule, schedule_sets
from dp_arena.tournament.quickplay.summary import summary_parts
from dp_arena.tournament.sessions import section_outcome, section_units
from dp_arena.tournament.standings import groups_by_key, standings_from_groups
from dp_arena.units import TableUnit

__all__ = ["QUICK_PLAY", "QuickPlayFormat", "QuickPlayPlan"]


def _settings_and_schedule(
    config: EventConfig, defaults: FormatDefaults
) -> tuple[EventSettings, QuickPlayOptions, int, QuickPlaySchedule]:
    settings = EventSettings.resolve(config, defaults)
    options = valid_options(read_options, config)
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
    return session_plan(
        planned.set_number,
        settings,
        betting=Betting.NO_LIMIT,
        # Every set decides money: like a last session, standings are hidden from bots.
        eliminating=True,
        final=True,
        sections=one_section(
            players=planned.tables * planned.seats,
            tables=planned.tables,
            seats=planned.seats,
            deals=planned.deals,
        ),
    )


class QuickPlayFormat(FormatWithOptions):
    name = "quickplay"
    title = "Quick Play"
    defaults = FormatDefaults(
        small_blind=10,
        big_blind=20,
        buy_in_cents=200,
        fee_cents=0,
        deals=((2, 4), (3, 6), (4, 4), (5, 5), (6, 6)),
    )

    read_options = staticmethod(read_options)

    def check_players(self, count: int) -> str | None:
        rule = "Quick Play needs at least 4 entrants (two heads-up tables)"
        return refused_count(count, count >= 4, rule)

    def plan(self, config: EventConfig) -> EventPlan:
        settings, options, seats, schedule = _settings_and_schedule(config, self.defaults)
        money = tuple(
            set_money(
                players=len(planned.players),
                seats=seats,
                deals=planned.deals,
                buy_in_cents=settings.buy_in_cents,
                set_basis_points=options.set_basis_points,
            )
            for planned in schedule.sets
        )
        notes = [
            f"set {planned.set_number} (round {planned.round}, contest {planned.contest}):"
            f" {planned.tables} x {seats}, {planned.deals} deals, pool"
            f" {format_cents(set_cents.pool_cents)}: set money"
            f" {format_cents(set_cents.set_money[0])} and hand money"
            f" {format_cents(set_cents.hand_money[0][0])} a deal per seat position"
            for planned, set_cents in zip(schedule.sets, money, strict=True)
        ]
        rake = options.rake_basis_points
        notes.append(f"rake {rake // 100}.{rake % 100:02d} % of each amount won")
        waiting = [player for player, count in schedule.sets_played if count == 0]
        if waiting:
            notes.append(f"never seated (no two tables to fill): {', '.join(waiting)}")
        return EventPlan.for_config(
            config,
            self.name,
            sessions=tuple(_session_plan(planned, settings) for planned in schedule.sets),
            prizes=PrizePlan(
                pool_cents=sum(set_cents.pool_cents for set_cents in money),
                buy_in_cents=settings.buy_in_cents,
                fee_cents=settings.fee_cents,
                kind=PrizeKind.SET_AND_HAND_MONEY,
                notes=tuple(notes),
            ),
            details=QuickPlayPlan(options, schedule, money),
        )

    def summary_parts(self, result: EventResult, absent_players: frozenset[str]) -> SummaryParts:
        return summary_parts(result, result.details, absent_players)

    def play(self, config: EventConfig, plan: EventPlan, runtime: Runtime) -> EventResult:
        details = plan_details(plan, QuickPlayPlan)
        options = details.options
        sets = [
            _Set(planned, session, money)
            for planned, session, money in zip(
                details.schedule.sets, plan.sessions, details.money, strict=True
            )
        ]
        records: list[SetRecord] = []
        sessions = PlayedSessions(runtime, [entrant.player for entrant in config.entrants])
        with Ledger(_ledger_path(config, options, runtime)) as ledger:
            purses = Purses(
                ledger, config, options, details.schedule, plan.prizes.buy_in_cents, runtime
            )
            for round_number, round_sets in _rounds(sets):
                for one in round_sets:
                    purses.before_set(one.planned)
                played = _play_round(config, round_number, round_sets, runtime)
                for one, (units, results) in zip(round_sets, played, strict=True):
                    record, outcome = _settle_set(config, one, units, results, purses, options)
                    records.append(record)
                    sessions.finish(outcome)
            played_details = QuickPlayDetails(
                game=purses.game,
                sets=tuple(records),
                players=purses.money(),
                rake_cents=sum(record.rake_cents for record in records),
                rake_basis_points=options.rake_basis_points,
                ledger_total_before_cents=purses.total_before,
                ledger_total_after_cents=ledger.total(),
            )
        return sessions.result(_standings(played_details.players), played_details)


@dataclass(frozen=True, slots=True)
class QuickPlayPlan:
    """What Quick Play plays from (the plan's ``details``): the options, the schedule of
    sets, and each set's money (in the schedule's order)."""

    options: QuickPlayOptions
    schedule: QuickPlaySchedule
    money: tuple[SetMoney, ...]


@dataclass(frozen=True, slots=True)
class _Set:
    """One set as planned: its place in continuous play, its session, its money."""

    planned: PlannedSet
    session: SessionPlan
    money: SetMoney


def _rounds(sets: list[_Set]) -> list[tuple[int, list[_Set]]]:
    """The sets by round, in order."""
    by_round: dict[int, list[_Set]] = {}
    for one in sets:
        by_round.setdefault(one.planned.round, []).append(one)
    return sorted(by_round.items())


def _play_round(
    config: EventConfig, round_number: int, round_sets: list[_Set], runtime: Runtime
) -> list[tuple[list[TableUnit], list[ScoredResult]]]:
    """Every set of a round played at once: each set's table units and their results."""
    entrants = {entrant.player: entrant for entrant in config.entrants}
    units = [
        section_units(
            config,
            one.session,
            one.session.sections[0],
            one.planned.seating,
            entrants,
            {},
            runtime.log_dir,
        )
        for one in round_sets
    ]
    results = runtime.run_units(f"round {round_number}", units)
    return list(zip(units, results, strict=True))


def _settle_set(
    config: EventConfig,
    one: _Set,
    units: list[TableUnit],
    results: list[ScoredResult],
    purses: Purses,
    options: QuickPlayOptions,
) -> tuple[SetRecord, SessionOutcome]:
    """A played set settled: its awards paid in the ledger, its record, and its outcome
    as a session of one section (no one advances or carries chips over)."""
    planned, money = one.planned, one.money
    awards = set_awards(
        money,
        planned.seating,
        [result.deal_nets for result in results],
        starting_stack=one.session.cap * planned.deals,
        rake_basis_points=options.rake_basis_points,
    )
    purses.settle(planned, awards)
    record = SetRecord(
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
    section = section_outcome(
        config, one.session, one.session.sections[0], planned.seating, units, results, {}
    )
    return record, SessionOutcome(planned.set_number, (section,), (), (), ())


def _ledger_path(config: EventConfig, options: QuickPlayOptions, runtime: Runtime) -> str:
    """The option's file (relative to the config), else the run directory's, else memory."""
    if options.ledger is not None:
        path = Path(options.ledger).expanduser()
        if not path.is_absolute() and config.source is not None:
            path = Path(config.source).resolve().parent / path
        return str(path)
    if runtime.run_dir is not None:
        return str(runtime.run_dir.ledger)
    return ":memory:"


def _standing_key(money: PlayerMoney) -> tuple[int, int]:
    return -money.won_cents, money.buy_ins_cents


def _standings(players: tuple[PlayerMoney, ...]) -> list[Standing]:
    """Players by the money they won (after the rake); equal winnings, the one that paid
    fewer buy-ins (the better profit) first; equal in both, they share the place, listed
    in config order. A standing's prize is what the player won."""
    groups = groups_by_key(players, _standing_key)
    return standings_from_groups(
        [[money.player for money in group] for group in groups],
        {money.player: money.won_cents for money in players},
        {},
        {},
    )


QUICK_PLAY = QuickPlayFormat()
