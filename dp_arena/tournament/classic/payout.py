"""The classic freezeout's payout in whole buy-in units (the classic house rules' design
criteria, docs/formats.md), for any number of entrants.

Seed 003 names its criteria but not its chart: at least one player in three is paid
(each at least its entry fee back), a big gap between first and second, every prize a
whole number of units (1 unit = one entry fee), and the units add up to the entrants.
The table here meets all four:

- ``paid = ⌈N / 3⌉`` places (one place, the whole pool, for N ≤ 3);
- every paid place gets 1 unit; the other ``N - paid`` units are shared in proportion to
  the weights ``3 x paid`` for first and ``paid - 1, paid - 2, ..., 1`` for second to
  last: each share rounded down, the units left over going one each to the largest
  rounded-off fractions (higher places first among equals);
- the resulting units are put in non-increasing order.

First always gets at least twice second (checked for every N up to 1000 in the tests).

>>> [payout_units(n) for n in (2, 4, 6, 9, 10, 20)]
[(2,), (3, 1), (4, 2), (6, 2, 1), (5, 2, 2, 1), (7, 3, 3, 2, 2, 2, 1)]
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["FIRST_PLACE_WEIGHT", "paid_places", "payout_units"]

FIRST_PLACE_WEIGHT = 3  # first place's weight, in multiples of the number paid


def paid_places(entrants: int) -> int:
    """Places paid: at least one player in three."""
    return max(1, math.ceil(entrants / 3))


def payout_units(entrants: int) -> tuple[int, ...]:
    """Units (entry fees) paid to places 1, 2, ...; they add up to ``entrants``."""
    if entrants < 1:
        raise ValueError(f"payout_units: entrants must be positive, not {entrants}")
    paid = paid_places(entrants)
    if paid == 1:
        return (entrants,)
    weights = [FIRST_PLACE_WEIGHT * paid, *range(paid - 1, 0, -1)]
    extra = entrants - paid
    total = sum(weights)
    exact = [Fraction(extra * weight, total) for weight in weights]
    shares = [math.floor(share) for share in exact]
    by_fraction = sorted(range(paid), key=lambda place: (shares[place] - exact[place], place))
    for place in by_fraction[: extra - sum(shares)]:
        shares[place] += 1
    return tuple(sorted((1 + share for share in shares), reverse=True))
