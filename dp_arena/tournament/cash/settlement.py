"""Settling one seat position of the duplicate cash game after a deal (docs/formats.md), in
integer cents that add up to zero exactly.

**Difference from the seat-position average** (the default): a player with net ``n``
in a seat position of ``K`` players whose nets add up to ``S`` receives
``(n - S / K) x chip value``. The exact amounts add up to zero but are fractions of a
cent when ``K`` does not divide ``K n - S``; each is rounded down to a whole cent, and
the cents this leaves over (fewer than ``K``) go one each to the players with the
largest rounded-off fractions, the earlier table first among equal fractions (the
largest-remainder method). Every player gets its exact amount to within one cent, and
the seat position's settlements add up to exactly zero.

**Matchpoints** (the alternative): each player scores one matchpoint for every player
of its seat position with a lower net and half a point for every one with the same net;
it receives ``(matchpoints - (K - 1) / 2) x matchpoint value``, rounded in the same way.
The average matchpoint score is ``(K - 1) / 2``, so this too is zero-sum.

**Rake** (optional): from each positive settlement the house takes ``amount x rake /
10 000`` rounded down; the seat position's settlements then add up to minus the rake.

>>> settle_average([300, -100, -110], chip_value_cents=1)  # average 30
(270, -130, -140)
>>> settle_average([100, 0, 0], chip_value_cents=1)  # 66.67, -33.33, -33.33
(67, -33, -34)
>>> settle_matchpoints([50, 50, -20], matchpoint_cents=100)  # 1.5, 1.5, 0 matchpoints
(50, 50, -100)
>>> apply_rake((67, -33, -34), rake_basis_points=500)
((64, -33, -34), (3, 0, 0))
"""

from __future__ import annotations

from collections.abc import Sequence

from dp_arena.tournament.money import BASIS_POINTS

__all__ = ["apply_rake", "round_zero_sum", "settle_average", "settle_matchpoints"]


def round_zero_sum(numerators: Sequence[int], denominator: int) -> tuple[int, ...]:
    """Whole cents for the exact amounts ``numerator / denominator`` (which add up to
    zero): rounded down, then one more cent each for the largest remainders, earlier
    entries first among equal remainders."""
    if sum(numerators) != 0 or denominator <= 0:
        raise ValueError("round_zero_sum: the exact amounts must add up to zero")
    floors = [numerator // denominator for numerator in numerators]
    remainders = [numerator % denominator for numerator in numerators]
    left_over = -sum(floors)  # = sum(remainders) / denominator, fewer than len(numerators)
    by_remainder = sorted(range(len(numerators)), key=lambda index: (-remainders[index], index))
    for index in by_remainder[:left_over]:
        floors[index] += 1
    return tuple(floors)


def settle_average(nets: Sequence[int], *, chip_value_cents: int) -> tuple[int, ...]:
    """Each player's settlement in cents: its difference from the average net."""
    count = len(nets)
    if count == 0:
        return ()
    total = sum(nets)
    return round_zero_sum([(count * net - total) * chip_value_cents for net in nets], count)


def settle_matchpoints(nets: Sequence[int], *, matchpoint_cents: int) -> tuple[int, ...]:
    """Each player's settlement in cents by matchpoints over its seat position."""
    count = len(nets)
    # Doubled matchpoints stay whole: 2 per player beaten, 1 per player tied.
    doubled = [
        sum(2 if net > other else 1 if net == other else 0 for other in nets) - 1 for net in nets
    ]
    return round_zero_sum([(points - (count - 1)) * matchpoint_cents for points in doubled], 2)


def apply_rake(
    settlements: Sequence[int], *, rake_basis_points: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The settlements after the house's rake of each positive one, and each rake."""
    rakes = tuple(
        amount * rake_basis_points // BASIS_POINTS if amount > 0 else 0 for amount in settlements
    )
    return tuple(amount - rake for amount, rake in zip(settlements, rakes, strict=True)), rakes
