"""Which two bots the ladder pairs next: the pair whose next match most reduces the
uncertainty of the ranking.

For a pair (a, b), a match of ``deals`` deals adds that many blocks to each; with ``n``
blocks and a spread of block scores ``s``, a bot's mean has variance ``s²/n``, so the
match takes ``s²(1/n − 1/(n + deals))`` off each one's variance: the **gain**. What it
is worth depends on how unsure their order is: ``u = 1 − |2p − 1|``, with ``p`` the
bootstrap's chance that a beats b (1 for a coin flip, 0 when one is surely ahead). The
pair with the largest ``u × gain`` is played; a bot with fewer than two blocks has an
unknown spread and an infinite gain, so new versions play first. Pairs that have met
less often come first among equals, then the names, so the choice is deterministic.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["PairStats", "choose_pair", "pair_value"]

# A spread for bots with too few blocks to measure one: large (one big blind a deal,
# squared, in mbb), so that they are measured first.
UNKNOWN_VARIANCE = 1000.0**2


@dataclass(frozen=True, slots=True)
class PairStats:
    """A bot's blocks so far and the standard deviation of its block scores."""

    blocks: int
    deviation: float | None


def _gain(stats: PairStats | None, deals: int, fallback: float) -> float:
    if stats is None or stats.blocks < 2:
        return math.inf
    variance = stats.deviation**2 if stats.deviation is not None else fallback
    return variance * (1 / stats.blocks - 1 / (stats.blocks + deals))


def pair_value(
    first: PairStats | None,
    second: PairStats | None,
    p_first_beats: float | None,
    *,
    deals: int,
    fallback_variance: float = UNKNOWN_VARIANCE,
) -> float:
    """``u × gain`` of one pair (infinite when either bot is new)."""
    gain = _gain(first, deals, fallback_variance) + _gain(second, deals, fallback_variance)
    uncertainty = 1.0 if p_first_beats is None else 1.0 - abs(2.0 * p_first_beats - 1.0)
    if math.isinf(gain):
        return math.inf
    return uncertainty * gain


def choose_pair(
    entries: Sequence[str],
    stats: Mapping[str, PairStats],
    p_beats: Callable[[str, str], float | None],
    meetings: Mapping[frozenset[str], int],
    *,
    deals: int,
) -> tuple[str, str] | None:
    """The next pair to play among ``entries`` (``None`` with fewer than two)."""
    if len(entries) < 2:
        return None
    best: tuple[float, int, str, str] | None = None
    for first, second in itertools.combinations(sorted(entries), 2):
        value = pair_value(stats.get(first), stats.get(second), p_beats(first, second), deals=deals)
        met = meetings.get(frozenset((first, second)), 0)
        candidate = (-value, met, first, second)
        if best is None or candidate < best:
            best = candidate
    assert best is not None
    return best[2], best[3]
