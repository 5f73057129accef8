"""The regular tournament (docs/formats.md): sections of at most 30, sessions of whole rounds,
elimination by seat position from session 2, carryover, and a round-robin final of 4
or 6 players; capped pot-limit until the semifinal, capped no-limit in the semifinal
and the final; prizes by final place.
"""

from __future__ import annotations

from dp_arena.engine import Betting
from dp_arena.tournament.config import EventConfig, EventSettings, FormatDefaults
from dp_arena.tournament.interface import EventFormat, Runtime, refused_count
from dp_arena.tournament.money import pay_places, split_by_weights
from dp_arena.tournament.outcomes import EventResult, RoundRobinOutcome
from dp_arena.tournament.plan import (
    EventPlan,
    PrizeKind,
    PrizePlan,
    SectionPlan,
    SessionKind,
    SessionPlan,
    section_sizes,
    session_plan,
)
from dp_arena.tournament.played import PlayedSessions
from dp_arena.tournament.regular.chart import REGULAR_CHART, regular_payout
from dp_arena.tournament.roundrobin import ROUND_ROBIN_SIZES
from dp_arena.tournament.roundrobin_session import plan_round_robin, play_round_robin
from dp_arena.tournament.sessions import play_sections_session
from dp_arena.tournament.standings import standings_from_groups

__all__ = ["REGULAR", "RegularFormat"]

FIRST_CARRYOVER = 500  # chips per place after session 1
LATER_CARRYOVER = 800  # after every later session but the semifinal


class RegularFormat(EventFormat):
    name = "regular"
    title = "Regular tournament"
    defaults = FormatDefaults(small_blind=20, big_blind=40)

    def check_players(self, count: int) -> str | None:
        return refused_count(count, count >= 4, "a regular tournament needs at least 4 entrants")

    def plan(self, config: EventConfig) -> EventPlan:
        settings = EventSettings.resolve(config, self.defaults)
        entrants = len(config.entrants)
        sessions: list[SessionPlan] = []
        remaining = entrants
        # 5 and 7 players are padded with absent players to 6 and 8 (docs/formats.md).
        if remaining in (4, 5, 6):
            sessions.append(
                plan_round_robin(1, 6 if remaining == 5 else remaining, remaining % 2, settings)
            )
        number = 1
        while not sessions or sessions[-1].kind is SessionKind.SECTIONS:
            sections = []
            for index, size in enumerate(section_sizes(remaining), start=1):
                row = REGULAR_CHART[size + 1 if size in (5, 7) else size]
                assert row.advancing is not None, f"a section of {size} is a round robin"
                sections.append(
                    SectionPlan(
                        section=index,
                        players=size,
                        tables=row.tables,
                        seats=row.seats,
                        absent=row.tables * row.seats - size,
                        deals=settings.deals_for(row.seats),
                        advancing=None if number == 1 else row.advancing // row.seats,
                    )
                )
            advancing = (
                remaining
                if number == 1
                else sum((section.advancing or 0) * section.seats for section in sections)
            )
            semifinal = advancing in ROUND_ROBIN_SIZES
            sessions.append(
                session_plan(
                    number,
                    settings,
                    betting=Betting.NO_LIMIT if semifinal else Betting.POT_LIMIT,
                    eliminating=number > 1,
                    final=False,
                    carryover_step=0
                    if semifinal
                    else (FIRST_CARRYOVER if number == 1 else LATER_CARRYOVER),
                    sections=sections,
                )
            )
            remaining = advancing
            number += 1
            if semifinal:
                sessions.append(plan_round_robin(number, remaining, 0, settings))
        pool = entrants * settings.buy_in_cents
        return EventPlan.for_config(
            config,
            self.name,
            sessions=sessions,
            prizes=PrizePlan(
                pool_cents=pool,
                buy_in_cents=settings.buy_in_cents,
                fee_cents=settings.fee_cents,
                kind=PrizeKind.PLACES,
                places=split_by_weights(pool, regular_payout(entrants))
                if pool
                else (0,) * len(regular_payout(entrants)),
            ),
        )

    def play(self, config: EventConfig, plan: EventPlan, runtime: Runtime) -> EventResult:
        order = {entrant.player: index for index, entrant in enumerate(config.entrants)}
        players = [entrant.player for entrant in config.entrants]
        carryover: dict[str, int] = {}
        eliminated_in: dict[str, int] = {}
        played = PlayedSessions(runtime, players)
        final: RoundRobinOutcome | None = None
        for session in plan.sessions:
            if session.kind is SessionKind.ROUND_ROBIN:
                final = play_round_robin(config, session, players, runtime)
                played.finish(final)
            else:
                sections = play_sections_session(config, session, players, carryover, runtime)
                for player in sections.eliminated:
                    eliminated_in[player] = session.session
                players = list(sections.advancing)
                carryover = dict(sections.carryover)
                played.finish(sections)
                del sections  # the next session needs only who goes on, and their carryover
        assert final is not None
        prizes = pay_places(plan.prizes.places, final.order)
        return played.result(standings_from_groups(final.order, prizes, eliminated_in, order))


REGULAR = RegularFormat()
