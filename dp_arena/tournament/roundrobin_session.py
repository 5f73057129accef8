"""A round-robin session (docs/formats.md), planned and played: the plan of its heads-up
mini-matches (:func:`plan_round_robin`); then players drawn to schedule slots, every
mini-match's heads-up tables run as units (all mini-matches are known in advance, so
they run together), each seat position of each mini-match scored, and the final order
found (:func:`play_round_robin`). The regular tournament's final and the Round Robin
Sit n Go are both one.

The deck of deal ``d`` of mini-match ``m`` in session ``s`` is
``deck_for(event_seed, section=m, session=s, deal=d)``: all tables of a mini-match play
the same deals, and each mini-match its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from dp_arena.engine import Betting
from dp_arena.tournament.config import EventConfig, EventSettings
from dp_arena.tournament.draws import Draw
from dp_arena.tournament.interface import Runtime
from dp_arena.tournament.outcomes import ComparisonOutcome, MatchOutcome, RoundRobinOutcome
from dp_arena.tournament.plan import RoundRobinPlan, SessionPlan, session_plan
from dp_arena.tournament.roundrobin import (
    Comparison,
    comparison_points,
    place_points,
    rank_round_robin,
    round_robin_schedule,
)
from dp_arena.tournament.sessions import ABSENT, assignment, session_unit, table_outcome

__all__ = ["plan_round_robin", "play_round_robin"]


def plan_round_robin(
    number: int, players: int, absent: int, settings: EventSettings, *, eliminating: bool = False
) -> SessionPlan:
    """The plan of a round robin of ``players`` seats (``absent`` of them placeholders)."""
    deals = settings.round_robin_deals
    return session_plan(
        number,
        settings,
        betting=Betting.NO_LIMIT,
        eliminating=eliminating,
        final=True,
        round_robin=RoundRobinPlan(
            players=players,
            absent=absent,
            deals_per_match=deals,
            starting_stack=settings.cap * deals,
            points_by_place=place_points(players),
            schedule=round_robin_schedule(players),
        ),
    )


def play_round_robin(
    config: EventConfig, session: SessionPlan, players: Sequence[str], runtime: Runtime
) -> RoundRobinOutcome:
    """Play the round robin of ``session`` with ``players`` (in entrant order)."""
    plan = session.round_robin
    assert plan is not None, "a round-robin session has a round-robin plan"
    entrants = {entrant.player: entrant for entrant in config.entrants}
    offline = {player for player, _ in config.absent}
    seated: list[str | None] = [*players, *([None] * plan.absent)]
    if len(seated) != plan.players:
        raise ValueError(
            f"round robin of {plan.players} seats given {len(players)} players"
            f" and {plan.absent} absent"
        )
    slots = Draw(config.deck_seed, "round-robin", session.session).shuffle(seated)
    rules = session.rules(2)
    units = [
        [
            session_unit(
                config,
                session,
                match,
                table,
                rules=rules,
                deals=plan.deals_per_match,
                seats=(assignment(slots[first], entrants), assignment(slots[second], entrants)),
                starting_chips=(plan.starting_stack, plan.starting_stack),
                log_dir=runtime.log_dir,
            )
            for table, (first, second) in enumerate(tables, start=1)
        ]
        for match, tables in enumerate(plan.schedule, start=1)
    ]
    results = runtime.run_units(f"session {session.session} (round robin)", units)

    # Absent players need distinct names to be told apart in the comparisons.
    names = [
        player if player is not None else f"{ABSENT}{slot}" for slot, player in enumerate(slots)
    ]
    comparisons: list[Comparison] = []
    matches = []
    for match, (tables, match_units, match_results) in enumerate(
        zip(plan.schedule, units, results, strict=True), start=1
    ):
        outcomes = []
        for seat in (0, 1):
            slot_list = [pair[seat] for pair in tables]
            chips = tuple(
                plan.starting_stack + result.session_nets[seat] for result in match_results
            )
            # An entrant whose bot could not load is an offline player: last, as absent.
            absent = tuple(slots[slot] is None or slots[slot] in offline for slot in slot_list)
            points = comparison_points(chips, absent, plan.points_by_place)
            comparisons.append(
                Comparison(
                    match, seat, tuple(names[slot] for slot in slot_list), chips, absent, points
                )
            )
            outcomes.append(
                ComparisonOutcome(seat, tuple(slots[slot] for slot in slot_list), chips, points)
            )
        matches.append(
            MatchOutcome(
                match=match,
                table_results=tuple(
                    table_outcome(unit, result)
                    for unit, result in zip(match_units, match_results, strict=True)
                ),
                comparisons=tuple(outcomes),
            )
        )
    absent_names = [name for name, player in zip(names, slots, strict=True) if player is None]
    order = rank_round_robin(names, comparisons, absent=absent_names)
    totals = {
        name: sum(
            (c.points[c.players.index(name)] for c in comparisons if name in c.players),
            start=Fraction(0),
        )
        for name in names
    }
    beaten = {
        name: sum(c.beaten_by(name) for c in comparisons if name in c.players) for name in names
    }
    real = [player for player in slots if player is not None]
    return RoundRobinOutcome(
        session=session.session,
        slots=tuple(slots),
        matches=tuple(matches),
        points=tuple((player, totals[player]) for player in real),
        beaten=tuple((player, beaten[player]) for player in real),
        order=tuple(tuple(group) for group in order if not set(group) & set(absent_names)),
    )
