"""Money in integer cents: exact splits, where every cent of a pool is paid.

Rounding remainders go one cent at a time to the higher-placed (earlier) recipient
(docs/formats.md), so every split adds up to its total exactly.

>>> split_evenly(1000, 3)
(334, 333, 333)
>>> split_by_weights(2400, [8, 5, 3, 7, 2, 5])  # the Round Robin Sit n Go example's 40 %
(640, 400, 240, 560, 160, 400)
>>> share_of(6000, 6000)  # 60 % of $60.00
3600
>>> format_cents(4240)
'$42.40'
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import TypeVar

__all__ = [
    "BASIS_POINTS",
    "format_cents",
    "pay_places",
    "share_of",
    "split_by_weights",
    "split_evenly",
]

BASIS_POINTS = 10_000  # 100 %
K = TypeVar("K", bound=Hashable)


def split_evenly(total: int, count: int) -> tuple[int, ...]:
    """``total`` cents in ``count`` shares differing by at most a cent, larger ones first."""
    if count <= 0:
        raise ValueError(f"split_evenly: count must be positive, not {count}")
    base, remainder = divmod(total, count)
    return tuple(base + (1 if index < remainder else 0) for index in range(count))


def split_by_weights(total: int, weights: Sequence[int | Fraction]) -> tuple[int, ...]:
    """``total`` cents in proportion to ``weights`` (in order of precedence): each share
    rounded down, then the remaining cents one at a time from the first share on."""
    if not weights or any(weight < 0 for weight in weights):
        raise ValueError(f"split_by_weights: weights must be non-negative, not {list(weights)}")
    weight_sum = sum(weights, Fraction(0))
    if weight_sum == 0:
        raise ValueError("split_by_weights: the weights add up to zero")
    shares = [int(Fraction(total) * weight / weight_sum) for weight in weights]
    remainder = total - sum(shares)
    index = 0
    while remainder > 0:  # fewer than len(weights) cents are left over
        if weights[index] > 0:
            shares[index] += 1
            remainder -= 1
        index = (index + 1) % len(weights)
    return tuple(shares)


def share_of(total: int, basis_points: int) -> int:
    """``basis_points`` / 10 000 of ``total`` cents, rounded down (the caller pays the
    remainder elsewhere so that the pool adds up)."""
    return total * basis_points // BASIS_POINTS


def pay_places(place_money: Sequence[int], groups: Sequence[Sequence[K]]) -> dict[K, int]:
    """Pay the money of places 1, 2, ... to ``groups`` of players in finishing order.

    A group of several players is a tie that money does not break: they share the money
    of the places they occupy equally, remainder cents to the group's earlier members.
    Places beyond ``place_money`` pay nothing. Every player of ``groups`` gets an entry.
    """
    paid: dict[K, int] = {}
    place = 0
    for group in groups:
        money = sum(place_money[place : place + len(group)])
        place += len(group)
        for player, amount in zip(group, split_evenly(money, len(group)), strict=True):
            paid[player] = amount
    if place < len(place_money) and sum(place_money[place:]) > 0:
        raise ValueError(f"pay_places: {len(place_money)} paid places but only {place} players")
    return paid


def format_cents(cents: int) -> str:
    """``4240`` → ``'$42.40'``."""
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars:,}.{rest:02d}"
