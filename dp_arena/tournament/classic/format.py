"""The classic freezeout (the classic house rules, docs/formats.md): ordinary no-limit hold'em
with no cap, the non-duplicate baseline that the same bots can play to measure the luck
duplicate removes. Played by :mod:`~dp_arena.tournament.classic.play`; tables by
:mod:`~dp_arena.tournament.classic.tables`; paid in whole buy-in units by
:mod:`~dp_arena.tournament.classic.payout`.

Options (``[options]``), with their defaults:

- ``starting_stack``: 700;
- ``blind_levels``: ``[[10, 20], [20, 40], [40, 80], [60, 120], [100, 200], [140, 280],
  [200, 400]]``, then ``blind_step`` (``[100, 200]``) more each level;
- ``level_hands``: hand rounds per level (20; two-thirds, rounded down, once 4 remain);
- ``max_seats``: players per table at most (10);
- ``late_entrants``: ``{ name = hand }``, entrants arriving before that hand round
  (1-based); ``late_registration_level``: the last level a late entrant may arrive in
  (3), on the normal clock;
- ``max_hand_rounds``: a safety stop (5000): players still in are then placed by chips.

The money is a $2 buy-in and no fee (the classic house rules); the pool is paid in whole buy-ins.
The ``[table]`` settings (cap, blinds, deals) do not apply: a freezeout has no cap and
its blinds are the levels.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dp_arena.errors import ConfigError
from dp_arena.tournament.bounds import (
    MAX_BLIND_LEVELS,
    MAX_CHIPS,
    MAX_DEALS,
    MAX_HAND_ROUNDS,
    MAX_LEVEL,
    shown,
)
from dp_arena.tournament.classic.payout import payout_units
from dp_arena.tournament.classic.play import (
    DEFAULT_LEVELS,
    ClassicSettings,
    play_classic,
)
from dp_arena.tournament.config import EventConfig, EventSettings, FormatDefaults, Problem
from dp_arena.tournament.interface import Runtime, refused_count
from dp_arena.tournament.money import pay_places
from dp_arena.tournament.option_checks import FormatWithOptions, OptionChecks, valid_options
from dp_arena.tournament.outcomes import EventResult
from dp_arena.tournament.plan import EventPlan, PrizeKind, PrizePlan, plan_details
from dp_arena.tournament.standings import standings_from_groups

__all__ = ["CLASSIC", "ClassicFormat", "classic_settings", "read_options"]

KNOWN_OPTIONS = (
    "starting_stack",
    "blind_levels",
    "blind_step",
    "level_hands",
    "max_seats",
    "late_entrants",
    "late_registration_level",
    "max_hand_rounds",
)


def _blind_pairs(checks: OptionChecks, key: str) -> tuple[tuple[int, int], ...] | None:
    value = checks.options.get(key)
    if value is None:
        return None
    pairs = []
    if isinstance(value, list) and 0 < len(value) <= MAX_BLIND_LEVELS:
        for pair in value:
            if (
                isinstance(pair, list)
                and len(pair) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) for x in pair)
                and 0 < pair[0] <= pair[1] <= MAX_CHIPS
            ):
                pairs.append((pair[0], pair[1]))
    if not pairs or len(pairs) != len(value):
        checks.add(
            key,
            f"must be a list of 1 to {MAX_BLIND_LEVELS:_} [small blind, big blind] pairs with"
            f" 0 < small <= big <= {MAX_CHIPS:_}, not {shown(value)}",
        )
        return None
    return tuple(pairs)


def read_options(options: Mapping[str, Any]) -> tuple[ClassicSettings, list[Problem]]:
    checks = OptionChecks(options, known=KNOWN_OPTIONS)
    levels = _blind_pairs(checks, "blind_levels") or DEFAULT_LEVELS
    step_value = options.get("blind_step")
    step = (100, 200)
    if step_value is not None:
        if (
            isinstance(step_value, list)
            and len(step_value) == 2
            and all(
                isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= MAX_CHIPS
                for x in step_value
            )
        ):
            step = (step_value[0], step_value[1])
        else:
            checks.add(
                "blind_step",
                f"must be [small, big], integers from 0 to {MAX_CHIPS:_}, not {shown(step_value)}",
            )
    settings = ClassicSettings(
        starting_stack=checks.integer("starting_stack", 700, low=1, high=MAX_CHIPS) or 700,
        levels=levels,
        level_step=step,
        level_hands=checks.integer("level_hands", 20, low=1, high=MAX_DEALS) or 20,
        max_seats=checks.integer("max_seats", 10, low=2, high=10) or 10,
        late_entrants=checks.player_integers("late_entrants", low=1, high=MAX_HAND_ROUNDS),
        late_registration_level=checks.integer("late_registration_level", 3, low=1, high=MAX_LEVEL)
        or 3,
        max_hand_rounds=checks.integer("max_hand_rounds", 5000, low=1, high=MAX_HAND_ROUNDS)
        or 5000,
    )
    for player, hand in settings.late_entrants:
        if hand > settings.late_registration_closes:
            checks.add(
                f"late_entrants.{player}",
                f"arrives at hand {hand}, after late registration closes at hand"
                f" {settings.late_registration_closes} (the end of level"
                f" {settings.late_registration_level} of {settings.level_hands} hands)",
            )
    return settings, checks.problems


def classic_settings(config: EventConfig) -> ClassicSettings:
    """The freezeout's settings from a validated config; :class:`ConfigError` when the
    config sets what a freezeout does not have, or names late entrants it lacks."""
    settings = valid_options(read_options, config)
    for name in ("cap", "small_blind", "big_blind", "round_robin_deals"):
        if getattr(config, name) is not None:
            raise ConfigError(
                f"table.{name}: a classic freezeout has no cap and its blinds are"
                " options.blind_levels; remove it",
                field=f"table.{name}",
            )
    if config.deals:
        raise ConfigError("table.deals: a freezeout has no sessions of deals", field="table.deals")
    players = {entrant.player for entrant in config.entrants}
    unknown = sorted(player for player, _ in settings.late_entrants if player not in players)
    if unknown:
        raise ConfigError(
            f"options.late_entrants: {', '.join(unknown)} not among the entrants",
            field="options.late_entrants",
        )
    if len(players) - len(settings.late_entrants) < 2:
        raise ConfigError(
            "options.late_entrants: at least two entrants must be there at the start",
            field="options.late_entrants",
        )
    return settings


class ClassicFormat(FormatWithOptions):
    name = "classic"
    title = "Classic freezeout"
    defaults = FormatDefaults(small_blind=10, big_blind=20, buy_in_cents=200, fee_cents=0)

    read_options = staticmethod(read_options)

    def check_players(self, count: int) -> str | None:
        return refused_count(count, count >= 2, "a freezeout needs at least 2 entrants")

    def plan(self, config: EventConfig) -> EventPlan:
        settings = classic_settings(config)
        money = EventSettings.resolve(config, self.defaults)
        entrants = len(config.entrants)
        units = payout_units(entrants)
        pool = entrants * money.buy_in_cents
        levels = ", ".join(f"{small}/{big}" for small, big in settings.levels)
        tables = -(-(entrants - len(settings.late_entrants)) // settings.max_seats)
        notes = (
            (
                f"ordinary no-limit, no cap; starting stack {settings.starting_stack};"
                f" {tables} table(s) of at most {settings.max_seats} at the start"
            ),
            (
                f"blind levels {levels}, then +{settings.level_step[0]}/+{settings.level_step[1]}"
                f" a level; {settings.level_hands} hands a level ({settings.short_level_hands}"
                " once 4 players remain)"
            ),
            (
                f"late registration until hand {settings.late_registration_closes}"
                f" ({len(settings.late_entrants)} late entrant(s))"
            ),
            f"paid in whole buy-ins: {' + '.join(map(str, units))} = {entrants} units",
        )
        return EventPlan.for_config(
            config,
            self.name,
            sessions=(),
            prizes=PrizePlan(
                pool_cents=pool,
                buy_in_cents=money.buy_in_cents,
                fee_cents=money.fee_cents,
                kind=PrizeKind.PLACES,
                places=tuple(unit * money.buy_in_cents for unit in units),
                notes=notes,
            ),
            details=settings,
        )

    def play(self, config: EventConfig, plan: EventPlan, runtime: Runtime) -> EventResult:
        outcome = play_classic(
            config.entrants,
            event=config.name,
            seed=config.deck_seed,
            settings=plan_details(plan, ClassicSettings),
            max_faults=config.max_faults,
            limits=config.limits,
            log_dir=runtime.log_dir,
            history_dir=None if runtime.run_dir is None else str(runtime.run_dir.histories),
        )
        prizes = pay_places(plan.prizes.places, outcome.finishing_order)
        standings = standings_from_groups(outcome.finishing_order, prizes, {}, {})
        return EventResult(
            (), tuple(standings), outcome.faults, outcome, hands_played=outcome.hands_played
        )


CLASSIC = ClassicFormat()
