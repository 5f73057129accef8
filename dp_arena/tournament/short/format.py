"""The short tournament and the Short Sit n Go (docs/formats.md): two or three sessions shaped
by the structure table, absent players added in session 1, no carryover, and the
winners of each seat position of the last session sharing the pool (for 33-36 players,
70 % to the seat-position winners and 30 % to the runners-up).

The short tournament is capped pot-limit throughout; the Sit n Go is capped pot-limit
in session 1 and capped no-limit afterwards; both play blinds 10/20.
"""

from __future__ import annotations

from dp_arena.engine import Betting
from dp_arena.tournament.config import EventConfig, EventSettings, FormatDefaults
from dp_arena.tournament.interface import EventFormat, Runtime, refused_count
from dp_arena.tournament.money import pay_places, split_by_weights, split_evenly
from dp_arena.tournament.outcomes import EventResult, SessionOutcome
from dp_arena.tournament.plan import (
    EventPlan,
    PrizeKind,
    PrizePlan,
    one_section,
    session_plan,
)
from dp_arena.tournament.played import PlayedSessions
from dp_arena.tournament.ranking import RankedScore, SeatScore, money_groups
from dp_arena.tournament.sessions import play_sections_session
from dp_arena.tournament.short.structure import (
    SHORT_SPLIT_TWO_PLACES,
    SHORT_STRUCTURE,
    SNG_SHORT_SIZES,
)
from dp_arena.tournament.standings import standings_from_groups

__all__ = ["SHORT", "SNG_SHORT", "ShortFormat"]


class ShortFormat(EventFormat):
    """The short tournament (``sit_and_go=False``) or the Short Sit n Go."""

    def __init__(self, *, sit_and_go: bool) -> None:
        self.sit_and_go = sit_and_go
        self.name = "sng-short" if sit_and_go else "short"
        self.title = "Short Sit n Go" if sit_and_go else "Short tournament"
        self.defaults = FormatDefaults(
            small_blind=10, big_blind=20, fee_cents=None if sit_and_go else 100, fee_percent=10
        )

    def check_players(self, count: int) -> str | None:
        if self.sit_and_go:
            sizes = ", ".join(map(str, SNG_SHORT_SIZES))
            rule = f"a Short Sit n Go starts with {sizes} players"
            return refused_count(count, count in SNG_SHORT_SIZES, rule)
        return refused_count(
            count, count in SHORT_STRUCTURE, "a short tournament takes 6 to 36 entrants"
        )

    def plan(self, config: EventConfig) -> EventPlan:
        settings = EventSettings.resolve(config, self.defaults)
        entrants = len(config.entrants)
        row = SHORT_STRUCTURE[entrants]
        sessions = []
        remaining = entrants
        for number, stage in enumerate(row.stages, start=1):
            absent = row.absent if number == 1 else 0
            no_limit = self.sit_and_go and number > 1
            sessions.append(
                session_plan(
                    number,
                    settings,
                    betting=Betting.NO_LIMIT if no_limit else Betting.POT_LIMIT,
                    # The last session decides the money: its standings are hidden too.
                    eliminating=True,
                    final=stage.advancing is None,
                    sections=one_section(
                        players=remaining,
                        tables=stage.tables,
                        seats=stage.seats,
                        deals=settings.deals_for(stage.seats),
                        absent=absent,
                        advancing=stage.advancing,
                    ),
                )
            )
            if stage.advancing is not None:
                remaining = stage.advancing * stage.seats
        pool = entrants * settings.buy_in_cents
        seat_positions = row.stages[-1].seats
        if row.paid_places == 1:
            by_place = [split_evenly(pool, seat_positions)]
        else:
            first, second = split_by_weights(pool, SHORT_SPLIT_TWO_PLACES) if pool else (0, 0)
            by_place = [split_evenly(first, seat_positions), split_evenly(second, seat_positions)]
        return EventPlan.for_config(
            config,
            self.name,
            sessions=sessions,
            prizes=PrizePlan(
                pool_cents=pool,
                buy_in_cents=settings.buy_in_cents,
                fee_cents=settings.fee_cents,
                kind=PrizeKind.SEAT_POSITIONS,
                seat_positions=tuple(
                    tuple(place[seat] for place in by_place) for seat in range(seat_positions)
                ),
            ),
        )

    def play(self, config: EventConfig, plan: EventPlan, runtime: Runtime) -> EventResult:
        order = {entrant.player: index for index, entrant in enumerate(config.entrants)}
        players = [entrant.player for entrant in config.entrants]
        eliminated_in: dict[str, int] = {}
        played = PlayedSessions(runtime, players)
        last: SessionOutcome | None = None
        for session in plan.sessions:
            last = play_sections_session(config, session, players, {}, runtime)
            if not session.final:
                for player in last.eliminated:
                    eliminated_in[player] = session.session
                players = list(last.advancing)
            played.finish(last)
        assert last is not None  # the last session decides the money
        prizes: dict[str, int] = {}
        by_rank: dict[int, list[str]] = {}
        offline = {player for player, _ in config.absent}  # never win (docs/rules.md)
        for section in last.sections:
            for seat in range(section.seats):
                rows = [row for row in section.players if row.seat == seat]
                ranked = [
                    RankedScore(
                        row.rank,
                        SeatScore(
                            row.player or "",
                            row.total_chips,
                            row.session_net,
                            row.round_nets,
                            row.rank,
                            row.player is None or row.player in offline,
                        ),
                        row.decided_by,
                    )
                    for row in rows
                ]
                groups = [[entry.player for entry in group] for group in money_groups(ranked)]
                prizes.update(pay_places(plan.prizes.seat_positions[seat], groups))
                for row in rows:
                    if row.player is not None:
                        by_rank.setdefault(row.rank, []).append(row.player)
        groups = [sorted(by_rank[rank], key=order.__getitem__) for rank in sorted(by_rank)]
        return played.result(standings_from_groups(groups, prizes, eliminated_in, order))


SHORT = ShortFormat(sit_and_go=False)
SNG_SHORT = ShortFormat(sit_and_go=True)
