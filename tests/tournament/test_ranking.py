"""Seat-position ranking and its tie-breakers, and carryover (docs/formats.md), on scores
built by hand."""

from __future__ import annotations

from dp_arena.tournament.ranking import SeatScore, carryover_steps, money_groups, rank_seat_position


def _order(*scores: SeatScore) -> list[str]:
    return [entry.player for entry in rank_seat_position(scores)]


def test_total_chips_decides_first() -> None:
    # b has the better session but a carried 800 more chips in: totals decide.
    a = SeatScore("a", total_chips=9800, session_net=-200, round_nets=(100, -200), draw=1)
    b = SeatScore("b", total_chips=9500, session_net=500, round_nets=(0, 500), draw=0)
    ranked = rank_seat_position([b, a])
    assert [entry.player for entry in ranked] == ["a", "b"]
    assert ranked[1].decided_by == "total chips"


def test_session_net_breaks_a_tie_on_total_chips() -> None:
    # Equal totals (9 000): b had 500 carryover and a session net of 0, a 0 carryover and +500.
    a = SeatScore("a", total_chips=9500, session_net=500, round_nets=(0, 500), draw=1)
    b = SeatScore("b", total_chips=9500, session_net=0, round_nets=(900, 0), draw=0)
    ranked = rank_seat_position([b, a])
    assert [entry.player for entry in ranked] == ["a", "b"]
    assert ranked[1].decided_by == "session net"


def test_the_previous_round_then_the_one_before_it_break_the_next_ties() -> None:
    # Three rounds. Same total and session net. a and b were level after round 2, so round 1
    # decides between them; c was behind after round 2.
    a = SeatScore("a", total_chips=9000, session_net=0, round_nets=(300, 100, 0), draw=2)
    b = SeatScore("b", total_chips=9000, session_net=0, round_nets=(-300, 100, 0), draw=0)
    c = SeatScore("c", total_chips=9000, session_net=0, round_nets=(900, -50, 0), draw=1)
    ranked = rank_seat_position([c, b, a])
    assert [entry.player for entry in ranked] == ["a", "b", "c"]
    assert [entry.decided_by for entry in ranked] == [None, "round 1", "round 2"]


def test_a_seeded_draw_breaks_what_is_left() -> None:
    a = SeatScore("a", total_chips=9000, session_net=0, round_nets=(10, 0), draw=1)
    b = SeatScore("b", total_chips=9000, session_net=0, round_nets=(10, 0), draw=0)
    ranked = rank_seat_position([a, b])
    assert [entry.player for entry in ranked] == ["b", "a"] and ranked[1].decided_by == "draw"


def test_absent_players_rank_last_whatever_their_chips() -> None:
    absent = SeatScore(
        "(absent)", total_chips=12000, session_net=3000, round_nets=(3000,), draw=9, absent=True
    )
    real = SeatScore("a", total_chips=100, session_net=-8900, round_nets=(-8900,), draw=0)
    assert _order(absent, real) == ["a", "(absent)"]


def test_money_ties_are_not_broken() -> None:
    a = SeatScore("a", total_chips=9000, session_net=0, round_nets=(10, 0), draw=1)
    b = SeatScore("b", total_chips=9000, session_net=0, round_nets=(-10, 0), draw=0)
    c = SeatScore("c", total_chips=8000, session_net=-1000, round_nets=(-10, -1000), draw=2)
    ghost = SeatScore("x", total_chips=8000, session_net=0, round_nets=(0, 0), draw=3, absent=True)
    groups = money_groups(rank_seat_position([a, b, c, ghost]))
    assert [[entry.player for entry in group] for group in groups] == [["a", "b"], ["c"]]


def test_carryover_example_of_the_seed() -> None:
    """Five players in a seat position, 800 per place: 3 200, 2 400, 1 600, 800, 0."""
    assert carryover_steps(5, 800) == (3200, 2400, 1600, 800, 0)
    assert carryover_steps(4, 500) == (1500, 1000, 500, 0)
