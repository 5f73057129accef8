"""Plans against the rules' own tables: every row of the rules' section chart and of
their short / Sit n Go structure table (pasted here as text and parsed, so the test
does not read the chart the code uses), and the 70-player example; and a format's play
reading its plan, never planning again from the config."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dp_arena.engine import Betting
from dp_arena.tournament.config import EventSettings
from dp_arena.tournament.formats import get_format
from dp_arena.tournament.interface import Runtime
from dp_arena.tournament.loading import default_config
from dp_arena.tournament.plan import EventPlan, SessionKind, section_sizes
from dp_arena.units import SerialExecutor

# The rules' section chart, verbatim: N | tables x P | empty | adv/elim | deals
REGULAR_CHART = """
| 4 | 2x2 | | round robin | RR-18 |
| 6 | 3x2 | | round robin | RR-30 |
| 8 | 4x2 | | 6/2 | 8 |
| 9 | 3x3 | | 6/3 | 9 |
| 10 | 5x2 | | 6/4 | 8 |
| 11 | 4x3 | 1 | 6/5 | 9 |
| 12 | 4x3 | | 6/6 | 9 |
| 13 | 5x3 | 2 | 9/4 | 9 |
| 14 | 5x3 | 1 | 9/5 | 9 |
| 15 | 5x3 | | 9/6 | 9 |
| 16 | 4x4 | | 12/4 | 8 |
| 17 | 3x6 | 1 | 12/5 | 6 |
| 18 | 3x6 | | 12/6 | 6 |
| 19 | 5x4 | 1 | 12/7 | 8 |
| 20 | 5x4 | | 12/8 | 8 |
| 21 | 3x7 | | 14/7 | 7 |
| 22 | 4x6 | 2 | 12/10 | 6 |
| 23 | 4x6 | 1 | 12/11 | 6 |
| 24 | 4x6 | | 12/12 | 6 |
| 25 | 5x5 | | 15/10 | 10 |
| 26 | 4x7 | 2 | 14/12 | 7 |
| 27 | 4x7 | 1 | 14/13 | 7 |
| 28 | 4x7 | | 14/14 | 7 |
| 29 | 5x6 | 1 | 18/11 | 6 |
| 30 | 5x6 | | 18/12 | 6 |
"""

# The rules' short / Sit n Go structure table, verbatim:
# start | absent | session 1 | adv | session 2 | adv | session 3 | prizes
SHORT_TABLE = """
| 6 | 0 | 3x2 | 2 of 3 | 2x2 | | | 1st of 2 -> 2 |
| 7 | 1 | 2x4 | 1 of 2 | 2x2 | | | 1st of 2 -> 2 |
| 8 | 0 | 2x4 | 1 of 2 | 2x2 | | | 1st of 2 -> 2 |
| 9 | 0 | 3x3 | 2 of 3 | 3x2 | | | 1st of 3 -> 2 |
| 10 | 0 | 5x2 | 2 of 5 | 2x2 | | | 1st of 2 -> 2 |
| 11 | 1 | 4x3 | 2 of 4 | 3x2 | | | 1st of 3 -> 2 |
| 12 | 0 | 4x3 | 2 of 4 | 3x2 | | | 1st of 3 -> 2 |
| 13 | 3 | 4x4 | 2 of 4 | 2x4 | 1 of 2 | 2x2 | 1st of 2 -> 2 |
| 14 | 2 | 4x4 | 2 of 4 | 2x4 | 1 of 2 | 2x2 | 1st of 2 -> 2 |
| 15 | 1 | 4x4 | 2 of 4 | 2x4 | 1 of 2 | 2x2 | 1st of 2 -> 2 |
| 16 | 0 | 4x4 | 2 of 4 | 2x4 | 1 of 2 | 2x2 | 1st of 2 -> 2 |
| 17 | 1 | 6x3 | 3 of 6 | 3x3 | 2 of 3 | 2x3 | 1st of 2 -> 3 |
| 18 | 0 | 6x3 | 3 of 6 | 3x3 | 2 of 3 | 2x3 | 1st of 2 -> 3 |
| 19 | 1 | 5x4 | 3 of 5 | 4x3 | 2 of 4 | 2x3 | 1st of 2 -> 3 |
| 20 | 0 | 5x4 | 3 of 5 | 4x3 | 2 of 4 | 2x3 | 1st of 2 -> 3 |
| 21 | 3 | 6x4 | 3 of 6 | 4x3 | 2 of 4 | 2x3 | 1st of 2 -> 3 |
| 22 | 2 | 6x4 | 3 of 6 | 4x3 | 2 of 4 | 2x3 | 1st of 2 -> 3 |
| 23 | 1 | 6x4 | 3 of 6 | 4x3 | 2 of 4 | 2x3 | 1st of 2 -> 3 |
| 24 | 0 | 6x4 | 3 of 6 | 4x3 | 2 of 4 | 2x3 | 1st of 2 -> 3 |
| 25 | 0 | 5x5 | 3 of 5 | 3x5 | 3 of 5 | 3x3 | 1st of 3 -> 3 |
| 26 | 2 | 7x4 | 4 of 7 | 4x4 | 2 of 4 | 2x4 | 1st of 2 -> 4 |
| 27 | 1 | 7x4 | 4 of 7 | 4x4 | 2 of 4 | 2x4 | 1st of 2 -> 4 |
| 28 | 0 | 7x4 | 4 of 7 | 4x4 | 2 of 4 | 2x4 | 1st of 2 -> 4 |
| 29 | 1 | 6x5 | 3 of 6 | 3x5 | 3 of 5 | 3x3 | 1st of 3 -> 3 |
| 30 | 0 | 6x5 | 3 of 6 | 3x5 | 3 of 5 | 3x3 | 1st of 3 -> 3 |
| 31 | 1 | 4x8 | 2 of 4 | 4x4 | 2 of 4 | 2x4 | 1st of 2 -> 4 |
| 32 | 0 | 4x8 | 2 of 4 | 4x4 | 2 of 4 | 2x4 | 1st of 2 -> 4 |
| 33 | 3 | 6x6 | 3 of 6 | 6x3 | 3 of 6 | 3x3 | 1st and 2nd of 3 -> 6 |
| 34 | 2 | 6x6 | 3 of 6 | 6x3 | 3 of 6 | 3x3 | 1st and 2nd of 3 -> 6 |
| 35 | 1 | 6x6 | 3 of 6 | 6x3 | 3 of 6 | 3x3 | 1st and 2nd of 3 -> 6 |
| 36 | 0 | 6x6 | 3 of 6 | 6x3 | 3 of 6 | 3x3 | 1st and 2nd of 3 -> 6 |
"""

# The rules: deals per session by players per table.
DEALS = {2: 8, 3: 9, 4: 8, 5: 10, 6: 6, 7: 7, 8: 8}


def _rows(text: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text.strip().splitlines()
    ]


def _shape(cell: str) -> tuple[int, int]:
    tables, seats = cell.split("x")
    return int(tables), int(seats)


def _plan(format_name: str, players: int) -> EventPlan:
    return get_format(format_name).plan(default_config(format_name, players))


@pytest.mark.parametrize("row", _rows(REGULAR_CHART), ids=lambda row: f"N={row[0]}")
def test_every_row_of_the_regular_section_chart(row: list[str]) -> None:
    players, (tables, seats), empty = int(row[0]), _shape(row[1]), int(row[2] or 0)
    plan = _plan("regular", players)
    if row[3] == "round robin":
        (session,) = plan.sessions
        assert session.kind is SessionKind.ROUND_ROBIN
        assert session.round_robin is not None
        schedule = session.round_robin.schedule
        assert seats == 2 and all(len(tables_of_match) == tables for tables_of_match in schedule)
        assert f"RR-{session.round_robin.deals}" == row[4]
        return
    advancing, eliminated = map(int, row[3].split("/"))
    assert advancing + eliminated == players
    first, second = plan.sessions[0], plan.sessions[1]
    for session in (first, second):
        (section,) = session.sections
        assert (section.players, section.tables, section.seats, section.absent) == (
            players,
            tables,
            seats,
            empty,
        )
        assert section.deals == int(row[4]) == DEALS[seats]
        assert session.cap * section.deals == 1000 * int(row[4])  # starting stack = cap x deals
    assert first.advancing == players  # session 1 eliminates no one
    assert not first.eliminating and second.eliminating
    assert second.advancing == advancing
    assert second.sections[0].advancing == advancing // seats  # the same number per seat position


def test_the_seventy_player_example() -> None:
    plan = _plan("regular", 70)
    shapes = [(s.kind, [x.players for x in s.sections], s.advancing) for s in plan.sessions]
    assert shapes == [
        (SessionKind.SECTIONS, [23, 23, 24], 70),
        (SessionKind.SECTIONS, [23, 23, 24], 36),
        (SessionKind.SECTIONS, [18, 18], 24),
        (SessionKind.SECTIONS, [24], 12),
        (SessionKind.SECTIONS, [12], 6),
        (SessionKind.ROUND_ROBIN, [], None),
    ]
    rr = plan.sessions[-1].round_robin
    assert rr is not None and (rr.players, rr.deals, rr.matches, rr.deals_per_match) == (
        6,
        30,
        5,
        6,
    )
    # The chart's deal counts win over the example's "12 deals" (docs/formats.md).
    assert [[x.deals for x in s.sections] for s in plan.sessions[:5]] == [
        [6, 6, 6],
        [6, 6, 6],
        [6, 6],
        [6],
        [9],
    ]
    # Pot-limit until the semifinal; the semifinal and the final are no-limit; blinds 20/40.
    assert [s.betting for s in plan.sessions] == [Betting.POT_LIMIT] * 4 + [Betting.NO_LIMIT] * 2
    assert {(s.small_blind, s.big_blind, s.cap) for s in plan.sessions} == {(20, 40, 1000)}
    # Carryover: 500 after session 1, 800 after later ones, none into the final.
    assert [s.carryover_step for s in plan.sessions] == [500, 800, 800, 800, 0, 0]
    assert [s.eliminating for s in plan.sessions[:5]] == [False, True, True, True, True]


@pytest.mark.parametrize("players", [*range(8, 31), 31, 45, 59, 60, 61, 90, 91, 100, 128, 250])
def test_sections_hold_at_most_thirty_and_differ_by_at_most_one(players: int) -> None:
    sizes = section_sizes(players)
    assert sum(sizes) == players and max(sizes) <= 30 and max(sizes) - min(sizes) <= 1
    assert len(sizes) == -(-players // 30)
    plan = _plan("regular", players)
    remaining = players
    for session in plan.sessions[:-1]:
        assert session.players == remaining
        assert all(
            section.players not in (5, 7) and section.players <= 30 for section in session.sections
        )
        remaining = session.advancing or 0
    assert plan.sessions[-1].kind is SessionKind.ROUND_ROBIN and remaining in (4, 6)


@pytest.mark.parametrize("players, padded", [(5, 6), (7, 8)])
def test_five_and_seven_are_padded_with_absent_players(players: int, padded: int) -> None:
    plan = _plan("regular", players)
    first = plan.sessions[0]
    if padded == 6:
        assert first.round_robin is not None and (
            first.round_robin.players,
            first.round_robin.absent,
        ) == (6, 1)
    else:
        (section,) = first.sections
        assert (section.tables * section.seats, section.absent) == (8, 1)


@pytest.mark.parametrize("row", _rows(SHORT_TABLE), ids=lambda row: f"N={row[0]}")
@pytest.mark.parametrize("format_name", ["short", "sng-short"])
def test_every_row_of_the_short_structure_table(format_name: str, row: list[str]) -> None:
    players = int(row[0])
    if format_name == "sng-short" and players not in (6, 8, 10, 15, 20, 25):
        return
    plan = _plan(format_name, players)
    stages = [(row[2], row[3]), (row[4], row[5])] + ([(row[6], "")] if row[6] else [])
    if stages[1] == ("3x5", "3 of 5"):
        # SPEC erratum (docs/formats.md): 3 tables cannot give "3 of 5" per seat position
        # nor send 9 players on; the session is 5 tables x 3.
        stages[1] = ("5x3", "3 of 5")
    assert len(plan.sessions) == len(stages)
    remaining = players
    for number, (session, (shape, advance)) in enumerate(
        zip(plan.sessions, stages, strict=True), start=1
    ):
        (section,) = session.sections
        tables, seats = _shape(shape)
        absent = int(row[1]) if number == 1 else 0
        assert (section.players, section.tables, section.seats, section.absent) == (
            remaining,
            tables,
            seats,
            absent,
        )
        assert section.players + section.absent == tables * seats
        assert section.deals == DEALS[seats]
        assert section.advancing is None or section.advancing <= tables
        assert (session.small_blind, session.big_blind, session.carryover_step) == (10, 20, 0)
        expected_betting = (
            Betting.NO_LIMIT if format_name == "sng-short" and number > 1 else Betting.POT_LIMIT
        )
        assert session.betting is expected_betting
        if advance:
            of, among = map(int, advance.split(" of "))
            assert among == tables and section.advancing == of
            remaining = of * seats
        else:
            assert session.final and section.advancing is None
    winners = int(row[7].split("-> ")[1])
    prizes = plan.prizes
    assert sum(len([c for c in places if c]) for places in prizes.seat_positions) == winners
    assert prizes.total_cents == prizes.pool_cents == players * 1000


def test_sit_and_go_sizes_and_fee() -> None:
    plan = _plan("sng-short", 10)
    assert (plan.prizes.buy_in_cents, plan.prizes.fee_cents) == (
        1000,
        100,
    )  # fee 10 % of the buy-in
    rr = _plan("sng-round-robin", 4)
    (session,) = rr.sessions
    assert (
        session.round_robin is not None
        and session.round_robin.deals == 18
        and session.betting is Betting.NO_LIMIT
    )
    assert (session.small_blind, session.big_blind) == (10, 20) and rr.prizes.fee_cents == 100


def test_short_thirty_three_to_thirty_six_split_seventy_thirty() -> None:
    plan = _plan("short", 35)
    pool = 35 * 1000
    first = sum(places[0] for places in plan.prizes.seat_positions)
    second = sum(places[1] for places in plan.prizes.seat_positions)
    assert (first, second) == (pool * 70 // 100, pool * 30 // 100)


# Options each format's play would read again if it planned from the config a second time:
# its plan holds them (EventPlan.details), so a config changed after planning changes nothing.
PLAYED_FROM_THE_PLAN = {
    "quickplay": {"set_percent": 20, "sets": 2},
    "cash": {"settlement": "matchpoints", "deals": 6},
    "classic": {"starting_stack": 300},
}


@pytest.mark.parametrize("name", sorted(PLAYED_FROM_THE_PLAN))
def test_a_format_plays_from_its_plan_not_from_its_config_again(name: str) -> None:
    config = default_config(name, 8, seed=5)
    event_format = get_format(name)
    plan = event_format.plan(config)
    other = replace(config, options=tuple(sorted(PLAYED_FROM_THE_PLAN[name].items())))
    assert event_format.plan(other) != plan  # these options make another plan
    played = event_format.play(config, plan, Runtime(SerialExecutor()))
    assert event_format.play(other, plan, Runtime(SerialExecutor())) == played


def test_a_plan_holds_its_own_formats_details_only() -> None:
    plan = get_format("cash").plan(default_config("cash", 8))
    with pytest.raises(TypeError, match="made by another format"):
        get_format("quickplay").play(
            default_config("quickplay", 8), plan, Runtime(SerialExecutor())
        )


def test_the_details_of_a_plan_stay_out_of_its_json() -> None:
    plan = get_format("quickplay").plan(default_config("quickplay", 8))
    assert plan.details is not None
    assert "details" not in plan.to_json()


@pytest.mark.parametrize(
    ("name", "entrants"),
    [
        ("regular", 70),
        ("regular", 11),
        ("short", 13),
        ("sng-short", 10),
        ("sng-round-robin", 4),
        ("quickplay", 9),
        ("cash", 14),
    ],
)
def test_every_session_counts_the_players_of_its_sections_at_the_events_blinds(
    name: str, entrants: int
) -> None:
    config = default_config(name, entrants, seed=3)
    event_format = get_format(name)
    plan = event_format.plan(config)
    settings = EventSettings.resolve(config, event_format.defaults)
    for session in plan.sessions:
        if session.round_robin is None:
            assert session.kind is SessionKind.SECTIONS
            assert session.players == sum(section.players for section in session.sections)
            for section in session.sections:
                assert section.players == section.tables * section.seats - section.absent
        else:
            assert session.kind is SessionKind.ROUND_ROBIN and session.sections == ()
            assert session.players == session.round_robin.players - session.round_robin.absent
        rules = session.rules(3)
        assert (rules.seat_count, rules.small_blind, rules.big_blind, rules.cap) == (
            3,
            session.small_blind,
            session.big_blind,
            session.cap,
        )
        assert rules.betting is session.betting
        assert (session.small_blind, session.big_blind, session.cap) == (
            settings.small_blind,
            settings.big_blind,
            settings.cap,
        )


# The entrant counts each format takes (docs/formats.md), one refused and one taken on
# each side, with the words of the refusal.
PLAYER_COUNTS = [
    ("regular", 3, 4, "a regular tournament needs at least 4 entrants, not 3"),
    ("short", 5, 36, "a short tournament takes 6 to 36 entrants, not 5"),
    ("short", 37, 6, "a short tournament takes 6 to 36 entrants, not 37"),
    ("sng-short", 7, 8, "a Short Sit n Go starts with 6, 8, 10, 15, 20, 25 players, not 7"),
    ("sng-round-robin", 5, 6, "a Round Robin Sit n Go is played by 4 or 6 players, not 5"),
    ("quickplay", 3, 4, "Quick Play needs at least 4 entrants (two heads-up tables), not 3"),
    ("cash", 3, 4, "a duplicate cash game needs at least 4 players (two tables of two), not 3"),
    ("classic", 1, 2, "a freezeout needs at least 2 entrants, not 1"),
]


@pytest.mark.parametrize(("name", "refused", "taken", "words"), PLAYER_COUNTS)
def test_a_format_refuses_a_count_of_entrants_in_its_own_words(
    name: str, refused: int, taken: int, words: str
) -> None:
    event_format = get_format(name)
    assert event_format.check_players(refused) == words
    assert event_format.check_players(taken) is None
