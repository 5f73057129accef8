"""Round robin (docs/formats.md): the schedule of heads-up mini-matches, the points of each
comparison, and the final ranking with the rules' tie-breakers.

The schedule is over *slots* ``0..n-1`` (the seating draw maps players to slots): in
each of the ``n - 1`` mini-matches the ``n / 2`` heads-up tables are pairs
``(seat 0 slot, seat 1 slot)``; every pair of slots meets exactly once, and every slot
sits in each seat at least ``⌊(n-1)/2⌋`` times.

>>> round_robin_schedule(4)
(((0, 3), (1, 2)), ((1, 3), (2, 0)), ((3, 2), (0, 1)))
>>> comparison_points([6200, 5800, 6200], [False, False, False], (2, 1, 0))
(Fraction(3, 2), Fraction(0, 1), Fraction(3, 2))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

__all__ = [
    "ROUND_ROBIN_SIZES",
    "Comparison",
    "comparison_points",
    "place_points",
    "rank_round_robin",
    "round_robin_schedule",
]

Schedule = tuple[tuple[tuple[int, int], ...], ...]

ROUND_ROBIN_SIZES = (4, 6)  # players of a round robin: a regular final, a Sit n Go


def place_points(players: int) -> tuple[int, ...]:
    """Points by place in one comparison: 4 players → (1, 0); 6 players → (2, 1, 0)."""
    per_seat_position = players // 2
    return tuple(range(per_seat_position - 1, -1, -1))


@cache
def round_robin_schedule(players: int) -> Schedule:
    """The mini-matches of a round robin of ``players`` (an even number ≥ 4) slots."""
    if players < 4 or players % 2:
        raise ValueError(f"a round robin needs an even number of at least 4 players, not {players}")
    rounds = players - 1
    # The circle method: slot n-1 stays put, the others rotate one place a mini-match.
    pairings = [
        [(match, rounds)]
        + [((match + k) % rounds, (match - k) % rounds) for k in range(1, players // 2)]
        for match in range(rounds)
    ]
    lowest = rounds // 2
    highest = rounds - lowest
    flat = [pair for pairs in pairings for pair in pairs]
    seat_zero = [0] * players
    seat_one = [0] * players
    chosen: list[tuple[int, int]] = []

    # Orient each pair so that every slot sits in each seat lowest..highest times; a tiny
    # depth-first search, deterministic, first orientation tried first.
    def orient(index: int) -> bool:
        if index == len(flat):
            return all(lowest <= count <= highest for count in seat_zero)
        a, b = flat[index]
        for first, second in ((a, b), (b, a)):
            if seat_zero[first] < highest and seat_one[second] < highest:
                seat_zero[first] += 1
                seat_one[second] += 1
                chosen.append((first, second))
                if orient(index + 1):
                    return True
                chosen.pop()
                seat_zero[first] -= 1
                seat_one[second] -= 1
        return False

    if not orient(0):
        raise AssertionError(f"no balanced round-robin orientation for {players} players")
    per_match = players // 2
    return tuple(tuple(chosen[m * per_match : (m + 1) * per_match]) for m in range(rounds))


def comparison_points(
    chips: Sequence[int], absent: Sequence[bool], points_by_place: Sequence[int]
) -> tuple[Fraction, ...]:
    """Points of each player of one comparison, compared by total chips; tied players
    share the points of the places they occupy, and an absent player is always last."""
    order = sorted(range(len(chips)), key=lambda index: (absent[index], -chips[index]))
    points = [Fraction(0)] * len(chips)
    place = 0
    while place < len(order):
        end = place + 1
        while (
            end < len(order)
            and not absent[order[place]]
            and not absent[order[end]]
            and chips[order[end]] == chips[order[place]]
        ):
            end += 1
        share = Fraction(sum(points_by_place[place:end]), end - place)
        for index in order[place:end]:
            points[index] = share
        place = end
    return tuple(points)


@dataclass(frozen=True, slots=True)
class Comparison:
    """One seat position of one mini-match: its players, their total chips and points."""

    match: int
    seat: int
    players: tuple[str, ...]
    chips: tuple[int, ...]
    absent: tuple[bool, ...]
    points: tuple[Fraction, ...]

    def beaten_by(self, player: str) -> int:
        """How many players of this comparison ``player`` finished ahead of."""
        index = self.players.index(player)
        return sum(
            1 for other in range(len(self.players)) if other != index and _ahead(self, index, other)
        )


def _ahead(comparison: Comparison, index: int, other: int) -> bool:
    if comparison.absent[index] != comparison.absent[other]:
        return comparison.absent[other]
    return comparison.chips[index] > comparison.chips[other]


def rank_round_robin(
    players: Sequence[str], comparisons: Sequence[Comparison], absent: Sequence[str] = ()
) -> list[list[str]]:
    """Final order of a round robin as groups, best first; a group of several players is
    a declared tie (docs/formats.md). Within a group, players keep the order of ``players``.

    By points, then: two tied players who were compared in the same seat position — more
    points in those comparisons; otherwise, or still tied, more players beaten over the
    whole round robin; three or more tied — the comparisons that held all of them decide,
    otherwise players beaten. A tie split into smaller ties is broken again from the top.
    Absent players come last.
    """
    points: dict[str, Fraction] = {player: Fraction(0) for player in players}
    beaten: dict[str, int] = dict.fromkeys(players, 0)
    for comparison in comparisons:
        for index, player in enumerate(comparison.players):
            points[player] += comparison.points[index]
            beaten[player] += comparison.beaten_by(player)
    present = [player for player in players if player not in absent]
    missing = [player for player in players if player in absent]
    order: list[list[str]] = []
    for group in _split(present, points):
        order += _resolve(group, comparisons, beaten)
    if missing:
        order.append(missing)
    return order


def _split(group: Sequence[str], score: Mapping[str, Fraction | int]) -> list[list[str]]:
    values = sorted({score[player] for player in group}, reverse=True)
    return [[player for player in group if score[player] == value] for value in values]


def _resolve(
    group: list[str], comparisons: Sequence[Comparison], beaten: Mapping[str, int]
) -> list[list[str]]:
    if len(group) == 1:
        return [group]
    together = [c for c in comparisons if all(player in c.players for player in group)]
    if together:  # rule 1 (two players) and rule 3 (three or more)
        shared: dict[str, Fraction] = {player: Fraction(0) for player in group}
        for comparison in together:
            for player in group:
                shared[player] += comparison.points[comparison.players.index(player)]
        parts = _split(group, shared)
        if len(parts) > 1:
            return [piece for part in parts for piece in _resolve(part, comparisons, beaten)]
    parts = _split(group, beaten)  # rule 2
    if len(parts) > 1:
        return [piece for part in parts for piece in _resolve(part, comparisons, beaten)]
    return [group]  # a declared tie
