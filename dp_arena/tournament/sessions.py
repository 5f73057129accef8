"""Playing a session of sections (docs/formats.md): divide and seat the players, build the table
units, run them, and rank every seat position to decide who advances and what
carryover each advancer takes along. Sections of mirrored tables are also what Quick
Play's sets and the cash game's stretches are made of (:func:`section_units`,
:func:`section_outcome`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dp_arena.engine import TableRules
from dp_arena.results import ScoredResult
from dp_arena.tournament.config import Entrant, EventConfig
from dp_arena.tournament.draws import Draw
from dp_arena.tournament.interface import Runtime
from dp_arena.tournament.outcomes import PlayerSession, SectionOutcome, SessionOutcome, TableOutcome
from dp_arena.tournament.plan import SectionPlan, SessionPlan
from dp_arena.tournament.ranking import SeatScore, carryover_steps, rank_seat_position
from dp_arena.tournament.seating import Seating, divide_into_sections, seat_section
from dp_arena.units import SeatAssignment, TableUnit

__all__ = [
    "ABSENT",
    "assignment",
    "play_sections_session",
    "score_section",
    "section_outcome",
    "section_units",
    "session_unit",
    "table_outcome",
]

ABSENT = "(absent)"  # the name an absent player goes by at the table


def assignment(player: str | None, entrants: Mapping[str, Entrant]) -> SeatAssignment:
    if player is None:
        return SeatAssignment(ABSENT)
    entrant = entrants[player]
    return SeatAssignment(player, entrant.resolved, entrant.trusted)


def section_units(
    config: EventConfig,
    session: SessionPlan,
    section: SectionPlan,
    seating: Seating,
    entrants: Mapping[str, Entrant],
    carryover: Mapping[str, int],
    log_dir: str | None,
) -> list[TableUnit]:
    rules = session.rules(section.seats)
    stack = session.cap * section.deals
    return [
        session_unit(
            config,
            session,
            section.section,
            table,
            rules=rules,
            deals=section.deals,
            seats=tuple(assignment(player, entrants) for player in row),
            starting_chips=tuple(
                stack + (carryover.get(player, 0) if player else 0) for player in row
            ),
            log_dir=log_dir,
        )
        for table, row in enumerate(seating, start=1)
    ]


def session_unit(
    config: EventConfig,
    session: SessionPlan,
    section: int,
    table: int,
    *,
    rules: TableRules,
    deals: int,
    seats: tuple[SeatAssignment, ...],
    starting_chips: tuple[int, ...],
    log_dir: str | None,
) -> TableUnit:
    """Table ``table`` of ``section`` (a round robin's mini-match) in ``session``: the
    event's name, deck seed, fault limit and bots' limits from ``config``."""
    return TableUnit(
        event=config.name,
        event_seed=config.deck_seed,
        session=session.session,
        section=section,
        table=table,
        rules=rules,
        deals=deals,
        seats=seats,
        starting_chips=starting_chips,
        eliminating=session.eliminating,
        max_faults=config.max_faults,
        limits=config.limits,
        log_dir=log_dir,
    )


def table_outcome(unit: TableUnit, result: ScoredResult) -> TableOutcome:
    placeholders = set(unit.absent_seats)
    return TableOutcome(
        table=unit.table,
        players=tuple(None if seat.absent else seat.player for seat in unit.seats),
        deal_nets=result.deal_nets,
        faults=result.faults,
        benched=tuple(seat for seat in result.absent_seats if seat not in placeholders),
    )


def score_section(
    config: EventConfig,
    session: SessionPlan,
    section: SectionPlan,
    seating: Seating,
    results: Sequence[ScoredResult],
    carryover: Mapping[str, int],
) -> list[PlayerSession]:
    """Every seat's session, ranked within its seat position (best first), with who
    advances and the carryover it earns."""
    stack = session.cap * section.deals
    step = session.carryover_step
    steps = carryover_steps(section.tables, step)
    # An entrant whose bot could not load is an offline player: ranked with the absent,
    # last of its seat position, so out at the first session that eliminates anyone
    # (a session that keeps everyone keeps it too: the next session's plan counts on it).
    offline = {player for player, _ in config.absent}
    rows: list[PlayerSession] = []
    for seat in range(section.seats):
        players = [row[seat] for row in seating]
        draw_order = Draw(
            config.deck_seed, "tiebreak", session.session, section.section, seat
        ).shuffle(sorted(player for player in players if player is not None))
        scores = []
        where: dict[str, int] = {}
        for table_index, (player, result) in enumerate(zip(players, results, strict=True)):
            nets = [deal_nets[seat] for deal_nets in result.deal_nets]
            cumulative = [
                sum(nets[:end]) for end in range(section.seats, len(nets) + 1, section.seats)
            ]
            name = player if player is not None else f"{ABSENT}{table_index}"
            where[name] = table_index
            carry_in = carryover.get(player, 0) if player is not None else 0
            scores.append(
                SeatScore(
                    player=name,
                    total_chips=stack + carry_in + sum(nets),
                    session_net=sum(nets),
                    round_nets=tuple(cumulative),
                    draw=draw_order.index(player)
                    if player is not None
                    else len(players) + table_index,
                    absent=player is None or player in offline,
                )
            )
        advancing = _advancing(session, section)
        for entry in rank_seat_position(scores):
            player = None if entry.player.startswith(ABSENT) else entry.player
            advanced = player is not None and entry.rank <= advancing
            carry_in = carryover.get(player, 0) if player is not None else 0
            rows.append(
                PlayerSession(
                    player=player,
                    table=where[entry.player] + 1,
                    seat=seat,
                    starting_chips=stack,
                    carryover_in=carry_in,
                    session_net=entry.score.session_net,
                    total_chips=entry.score.total_chips,
                    round_nets=entry.score.round_nets,
                    rank=entry.rank,
                    decided_by=entry.decided_by,
                    advanced=advanced,
                    carryover_out=steps[entry.rank - 1] if advanced else 0,
                )
            )
    return rows


def section_outcome(
    config: EventConfig,
    session: SessionPlan,
    section: SectionPlan,
    seating: Seating,
    units: Sequence[TableUnit],
    results: Sequence[ScoredResult],
    carryover: Mapping[str, int],
) -> SectionOutcome:
    """A played section: its tables' outcomes and every seat's session, ranked."""
    return SectionOutcome(
        section=section.section,
        tables=section.tables,
        seats=section.seats,
        deals=section.deals,
        table_results=tuple(
            table_outcome(unit, result) for unit, result in zip(units, results, strict=True)
        ),
        players=tuple(score_section(config, session, section, seating, results, carryover)),
    )


def _advancing(session: SessionPlan, section: SectionPlan) -> int:
    """How many of each seat position advance: none after the last session, everyone
    (but absent players) from a session that eliminates no one."""
    if session.final:
        return 0
    return section.tables if section.advancing is None else section.advancing


def play_sections_session(
    config: EventConfig,
    session: SessionPlan,
    players: Sequence[str],
    carryover: Mapping[str, int],
    runtime: Runtime,
) -> SessionOutcome:
    """Play one session of sections with ``players`` (in entrant order)."""
    entrants = {entrant.player: entrant for entrant in config.entrants}
    order = {entrant.player: index for index, entrant in enumerate(config.entrants)}
    sizes = [section.players for section in session.sections]
    groups = divide_into_sections(
        players, sizes, Draw(config.deck_seed, "sections", session.session)
    )
    seatings = [
        seat_section(
            sorted(group, key=order.__getitem__),
            tables=section.tables,
            seats=section.seats,
            absent=section.absent,
            draw=Draw(config.deck_seed, "seating", session.session, section.section),
        )
        for section, group in zip(session.sections, groups, strict=True)
    ]
    units = [
        section_units(config, session, section, seating, entrants, carryover, runtime.log_dir)
        for section, seating in zip(session.sections, seatings, strict=True)
    ]
    scored: dict[int, SectionOutcome] = {}

    def score(index: int, results: list[ScoredResult]) -> None:
        # Each section as soon as its tables are in, while the others are played.
        scored[index] = section_outcome(
            config, session, session.sections[index], seatings[index], units[index], results,
            carryover,
        )  # fmt: skip

    runtime.run_units(f"session {session.session}", units, on_group=score)
    sections = [scored[index] for index in range(len(session.sections))]
    # Entrants only (absent players are never eliminated or carried over), in entrant order.
    everyone = sorted(
        (
            (row.player, row)
            for played in sections
            for row in played.players
            if row.player is not None
        ),
        key=lambda item: order[item[0]],
    )
    advancing = [player for player, row in everyone if row.advanced]
    eliminated = [player for player, row in everyone if not row.advanced]
    carry = tuple((player, row.carryover_out) for player, row in everyone if row.advanced)
    return SessionOutcome(
        session.session, tuple(sections), tuple(advancing), tuple(eliminated), carry
    )
