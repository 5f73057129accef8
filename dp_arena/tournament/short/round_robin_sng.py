"""The Round Robin Sit n Go (docs/formats.md): 4 or 6 players, a round robin of heads-up
mini-matches, capped no-limit, blinds 10/20, a 10 % fee; 60 % of the pool to the
overall winner and 40 % shared in proportion to points.
"""

from __future__ import annotations

from dp_arena.tournament.config import EventConfig, EventSettings, FormatDefaults
from dp_arena.tournament.interface import EventFormat, Runtime, refused_count
from dp_arena.tournament.money import split_by_weights, split_evenly
from dp_arena.tournament.outcomes import EventResult, RoundRobinOutcome
from dp_arena.tournament.plan import EventPlan, PrizeKind, PrizePlan
from dp_arena.tournament.played import PlayedSessions
from dp_arena.tournament.roundrobin import ROUND_ROBIN_SIZES
from dp_arena.tournament.roundrobin_session import plan_round_robin, play_round_robin
from dp_arena.tournament.standings import standings_from_groups

__all__ = ["SNG_ROUND_ROBIN", "RoundRobinSitAndGo", "round_robin_prizes"]

WINNER_SHARE = 6000  # basis points of the pool to the overall winner; the rest by points


def round_robin_prizes(prizes: PrizePlan, outcome: RoundRobinOutcome) -> dict[str, int]:
    """The winner's share to the first group (shared if it is a declared tie), and the
    rest in proportion to points, in finishing order (remainder cents to higher places)."""
    paid: dict[str, int] = {}
    winners = outcome.order[0]
    for player, amount in zip(
        winners, split_evenly(prizes.winner_cents, len(winners)), strict=True
    ):
        paid[player] = amount
    points = dict(outcome.points)
    finishing = [player for group in outcome.order for player in group]
    weights = [points[player] for player in finishing]
    shares = (
        split_by_weights(prizes.points_cents, weights)
        if sum(weights) > 0
        else (0,) * len(finishing)
    )
    for player, amount in zip(finishing, shares, strict=True):
        paid[player] = paid.get(player, 0) + amount
    return paid


class RoundRobinSitAndGo(EventFormat):
    name = "sng-round-robin"
    title = "Round Robin Sit n Go"
    defaults = FormatDefaults(small_blind=10, big_blind=20, fee_cents=None, fee_percent=10)

    def check_players(self, count: int) -> str | None:
        rule = "a Round Robin Sit n Go is played by 4 or 6 players"
        return refused_count(count, count in ROUND_ROBIN_SIZES, rule)

    def plan(self, config: EventConfig) -> EventPlan:
        settings = EventSettings.resolve(config, self.defaults)
        entrants = len(config.entrants)
        pool = entrants * settings.buy_in_cents
        winner, by_points = (
            split_by_weights(pool, (WINNER_SHARE, 10000 - WINNER_SHARE)) if pool else (0, 0)
        )
        return EventPlan.for_config(
            config,
            self.name,
            sessions=(plan_round_robin(1, entrants, 0, settings),),
            prizes=PrizePlan(
                pool_cents=pool,
                buy_in_cents=settings.buy_in_cents,
                fee_cents=settings.fee_cents,
                kind=PrizeKind.ROUND_ROBIN_POINTS,
                winner_cents=winner,
                points_cents=by_points,
            ),
        )

    def play(self, config: EventConfig, plan: EventPlan, runtime: Runtime) -> EventResult:
        order = {entrant.player: index for index, entrant in enumerate(config.entrants)}
        players = [entrant.player for entrant in config.entrants]
        played = PlayedSessions(runtime, players)
        outcome = play_round_robin(config, plan.sessions[0], players, runtime)
        played.finish(outcome)
        prizes = round_robin_prizes(plan.prizes, outcome)
        return played.result(standings_from_groups(outcome.order, prizes, {}, order))


SNG_ROUND_ROBIN = RoundRobinSitAndGo()
