"""Prizes in integer cents: the seeds' worked examples, and every split adds up."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from dp_arena.tournament.formats import get_format
from dp_arena.tournament.loading import default_config
from dp_arena.tournament.money import format_cents, pay_places, split_by_weights, split_evenly
from dp_arena.tournament.outcomes import RoundRobinOutcome
from dp_arena.tournament.regular.chart import regular_payout
from dp_arena.tournament.short.round_robin_sng import round_robin_prizes


def test_round_robin_sit_and_go_example() -> None:
    """Seed 000: 6 players at $10 with points 8, 5, 3, 7, 2, 5 are paid $42.40, $4.00,
    $2.40, $5.60, $1.60, $4.00 (player 1 wins; 60 % to the winner, 40 % by points)."""
    plan = get_format("sng-round-robin").plan(default_config("sng-round-robin", 6))
    assert (plan.prizes.pool_cents, plan.prizes.winner_cents, plan.prizes.points_cents) == (
        6000,
        3600,
        2400,
    )
    points = {"p1": 8, "p2": 5, "p3": 3, "p4": 7, "p5": 2, "p6": 5}
    outcome = RoundRobinOutcome(
        session=1,
        slots=tuple(points),
        matches=(),
        points=tuple((player, Fraction(value)) for player, value in points.items()),
        beaten=(),
        order=(("p1",), ("p4",), ("p2",), ("p6",), ("p3",), ("p5",)),
    )
    paid = round_robin_prizes(plan.prizes, outcome)
    assert [format_cents(paid[p]) for p in points] == [
        "$42.40",
        "$4.00",
        "$2.40",
        "$5.60",
        "$1.60",
        "$4.00",
    ]
    assert sum(paid.values()) == 6000


def test_a_declared_tie_for_first_shares_the_winners_money() -> None:
    plan = get_format("sng-round-robin").plan(default_config("sng-round-robin", 4))  # pool $40.00
    outcome = RoundRobinOutcome(
        1,
        ("a", "b", "c", "d"),
        (),
        (("a", Fraction(2)), ("b", Fraction(2)), ("c", Fraction(1)), ("d", Fraction(1))),
        (),
        (("a", "b"), ("c", "d")),
    )
    paid = round_robin_prizes(plan.prizes, outcome)
    # 60 % = $24.00 shared by a and b; 40 % = $16.00 by points 2:2:1:1 = 533.33, 533.33,
    # 266.67, 266.67 cents: rounded down, the 2 cents left go to the higher places.
    assert paid == {"a": 1200 + 534, "b": 1200 + 534, "c": 266, "d": 266}
    assert sum(paid.values()) == 4000


def test_regular_payout_tables_add_up_and_match_the_rules() -> None:
    assert regular_payout(8) == (10000,)
    assert regular_payout(9) == (6000, 4000) == regular_payout(18)
    assert regular_payout(19) == (5000, 3000, 2000) == regular_payout(28)
    assert regular_payout(29) == (4200, 2600, 1800, 1400) == regular_payout(38)
    assert regular_payout(39) == (4000, 2400, 1600, 1200, 800) == regular_payout(48)
    assert regular_payout(49) == (3700, 2300, 1500, 1150, 750, 600) == regular_payout(500)
    plan = get_format("regular").plan(default_config("regular", 70))
    # $700.00: 37 %, 23 %, 15 %, 11.5 %, 7.5 %, 6 %.
    assert plan.prizes.places == (25900, 16100, 10500, 8050, 5250, 4200)


@given(st.integers(min_value=0, max_value=10**9), st.integers(min_value=1, max_value=500))
def test_every_regular_prize_table_adds_up_to_the_pool(pool: int, entrants: int) -> None:
    places = split_by_weights(pool, regular_payout(entrants)) if pool else (0,)
    assert sum(places) == pool
    assert list(places) == sorted(places, reverse=True)


@given(st.integers(min_value=0, max_value=10**7), st.integers(min_value=1, max_value=40))
def test_even_splits_give_remainders_to_the_first(total: int, count: int) -> None:
    shares = split_evenly(total, count)
    assert sum(shares) == total and max(shares) - min(shares) <= 1
    assert list(shares) == sorted(shares, reverse=True)


@given(
    st.integers(min_value=0, max_value=10**7),
    st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=12).filter(any),
)
def test_weighted_splits_add_up_and_round_down_plus_at_most_a_cent(
    total: int, weights: list[int]
) -> None:
    shares = split_by_weights(total, weights)
    assert sum(shares) == total
    for share, weight in zip(shares, weights, strict=True):
        floor = total * weight // sum(weights)  # the exact share, rounded down
        assert floor <= share <= floor + 1
        assert weight or share == 0  # no points, no money


def test_ties_share_the_money_of_the_places_they_occupy() -> None:
    places = (5000, 3000, 2000)
    # b and c tie for 2nd: they share 2nd and 3rd place money.
    assert pay_places(places, [["a"], ["b", "c"], ["d"]]) == {
        "a": 5000,
        "b": 2500,
        "c": 2500,
        "d": 0,
    }
    # three tie for 1st on 1001 cents: remainder cent to the first of the group.
    assert pay_places((1001,), [["a", "b", "c"]]) == {"a": 334, "b": 334, "c": 333}


def test_short_pool_split_among_seat_position_winners() -> None:
    plan = get_format("short").plan(
        default_config("short", 7)
    )  # 7 * $10 = $70 among 2 seat positions
    assert plan.prizes.seat_positions == ((3500,), (3500,))
    odd = get_format("short").plan(default_config("short", 17))  # $170 among 3: earlier seats first
    assert odd.prizes.seat_positions == ((5667,), (5667,), (5666,))
