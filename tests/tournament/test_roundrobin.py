"""Round robin (docs/formats.md): schedules, points, and each of the rules' tie-breakers on
hand-built comparisons."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import pytest

from dp_arena.tournament.roundrobin import (
    Comparison,
    comparison_points,
    rank_round_robin,
    round_robin_schedule,
)


@pytest.mark.parametrize("players", [4, 6, 8, 10])
def test_every_pair_meets_exactly_once_and_seats_are_balanced(players: int) -> None:
    schedule = round_robin_schedule(players)
    assert len(schedule) == players - 1
    met = [frozenset(pair) for match in schedule for pair in match]
    assert sorted(met, key=sorted) == sorted(
        (frozenset(pair) for pair in combinations(range(players), 2)), key=sorted
    )
    for match in schedule:  # everyone plays in every mini-match, once
        assert sorted(slot for pair in match for slot in pair) == list(range(players))
    least = (players - 1) // 2
    for slot in range(players):
        first_seat = sum(1 for match in schedule for pair in match if pair[0] == slot)
        assert least <= first_seat and least <= players - 1 - first_seat


def test_points_by_place_and_shared_points() -> None:
    assert comparison_points([6100, 5900], [False, False], (1, 0)) == (1, 0)
    assert comparison_points([6000, 6000], [False, False], (1, 0)) == (
        Fraction(1, 2),
        Fraction(1, 2),
    )
    assert comparison_points([5000, 7000, 6000], [False, False, False], (2, 1, 0)) == (0, 2, 1)
    assert comparison_points([6000, 6000, 6000], [False, False, False], (2, 1, 0)) == (1, 1, 1)
    assert comparison_points([6000, 6000, 5000], [False, False, False], (2, 1, 0)) == (
        Fraction(3, 2),
        Fraction(3, 2),
        0,
    )
    # An absent player is last even with more chips.
    assert comparison_points([6500, 6000], [True, False], (1, 0)) == (0, 1)


def _comparison(match: int, chips: dict[str, int]) -> Comparison:
    """A seat position of a mini-match: 2 players score 1-0, 3 players 2-1-0."""
    players = tuple(chips)
    values = tuple(chips.values())
    table = (1, 0) if len(players) == 2 else (2, 1, 0)
    absent = (False,) * len(players)
    return Comparison(match, 0, players, values, absent, comparison_points(values, absent, table))


def _rank(comparisons: list[Comparison]) -> list[list[str]]:
    players = sorted({player for comparison in comparisons for player in comparison.players})
    return rank_round_robin(players, comparisons)


def test_two_tied_players_who_were_compared_go_by_the_points_of_those_comparisons() -> None:
    comparisons = [
        _comparison(1, {"a": 5000, "b": 7000}),  # b beats a head to head
        _comparison(2, {"a": 7000, "o1": 5000}),
        _comparison(3, {"a": 7000, "o2": 5000}),  # a: 2 points, beat 2 players
        _comparison(4, {"b": 6000, "o3": 6000}),
        _comparison(5, {"b": 6000, "o4": 6000}),  # b: 2 points, beat 1 player
    ]
    # Rule 1 comes before rule 2: b, though a beat more players.
    assert _rank(comparisons)[:2] == [["b"], ["a"]]


def test_two_tied_players_never_compared_go_by_players_beaten() -> None:
    comparisons = [
        _comparison(1, {"x": 7000, "o1": 5000}),
        _comparison(2, {"x": 7000, "o2": 5000}),  # x: 2 points, beat 2
        _comparison(3, {"y": 6000, "o3": 6000}),
        _comparison(4, {"y": 7000, "o4": 5000}),
        _comparison(5, {"y": 6000, "o5": 6000}),  # y: 2 points, beat 1
    ]
    assert _rank(comparisons)[:2] == [["x"], ["y"]]
    # y beats o3 and o5 too (and no longer ties): equal on everything, a declared tie.
    comparisons[2] = _comparison(3, {"y": 7000, "o3": 5000})
    del comparisons[4]
    assert _rank(comparisons)[0] == ["x", "y"]


def test_three_tied_players_compared_together_are_ordered_by_that_comparison() -> None:
    comparisons = [
        _comparison(1, {"a": 5000, "b": 7000, "c": 6000}),  # b 2, c 1, a 0
        _comparison(2, {"a": 7000, "o1": 6000, "o2": 5000}),  # a 2
        _comparison(3, {"c": 7000, "o3": 6000, "o4": 5000}),  # c 2 -> 3
        _comparison(4, {"b": 6000, "o5": 7000, "o6": 5000}),  # b 1 -> 3
        _comparison(5, {"a": 6000, "o7": 7000, "o8": 5000}),  # a 1 -> 3
    ]
    assert _rank(comparisons)[:3] == [["b"], ["c"], ["a"]]


def test_three_tied_never_together_go_by_players_beaten_then_again_from_the_top() -> None:
    comparisons = [
        _comparison(1, {"a": 7000, "b": 6000, "o1": 5000}),  # a 2 (beat 2), b 1 (beat 1)
        _comparison(2, {"a": 6000, "o2": 6000, "o3": 6000}),  # a 1 (beat 0): a 3, beat 2
        _comparison(3, {"b": 6000, "o4": 6000, "o5": 5000}),  # b 1.5 (beat 1)
        _comparison(4, {"b": 5000, "o6": 5000, "o7": 7000}),  # b 0.5 (beat 0): b 3, beat 2
        _comparison(5, {"c": 6000, "o8": 7000, "o9": 5000}),  # c 1 (beat 1)
        _comparison(6, {"c": 6000, "o10": 7000, "o11": 5000}),
        _comparison(7, {"c": 6000, "o12": 7000, "o13": 5000}),  # c 3, beat 3
    ]
    # Never all three in one comparison: c beat the most players; a and b, still tied,
    # were compared in mini-match 1, where a scored more.
    assert _rank(comparisons)[:3] == [["c"], ["a"], ["b"]]


def test_three_tied_in_a_cycle_are_a_declared_tie() -> None:
    comparisons = [
        _comparison(1, {"a": 7000, "b": 5000}),
        _comparison(1, {"c": 7000, "d": 5000}),
        _comparison(2, {"b": 7000, "c": 5000}),
        _comparison(2, {"a": 7000, "d": 5000}),
        _comparison(3, {"c": 7000, "a": 5000}),
        _comparison(3, {"b": 7000, "d": 5000}),
    ]
    # a beat b, b beat c, c beat a; each beat two players: nothing separates them.
    assert _rank(comparisons) == [["a", "b", "c"], ["d"]]


def test_absent_players_finish_last() -> None:
    points = comparison_points((5000, 7000), (False, True), (1, 0))
    comparisons = [Comparison(1, 0, ("a", "ghost"), (5000, 7000), (False, True), points)]
    assert rank_round_robin(["ghost", "a"], comparisons, absent=["ghost"]) == [["a"], ["ghost"]]
