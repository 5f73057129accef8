"""Block statistics: the mean of per-block scores with a Student-t confidence interval,
and a seeded block bootstrap.

A *block* is everything that shares the same cards: one deal played at every mirrored
table and in every seat rotation. Scores inside a block are correlated (that is the
point of duplicate), so every statistic here treats a block's score as one observation
and resamples whole blocks, never single hands.

>>> summary = summarize_blocks([1, 2, 3, 4, 5])
>>> summary.mean, round(summary.standard_error, 6)
(3.0, 0.707107)
>>> round(summary.low, 4), round(summary.high, 4)  # 3 -/+ t(0.975, 4) * sqrt(2.5 / 5)
(1.0368, 4.9632)
>>> round(student_t_quantile(0.975, 10), 5)
2.22814
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BlockSummary",
    "bootstrap_interval",
    "bootstrap_means",
    "bootstrap_partial_means",
    "percentile",
    "student_t_cdf",
    "student_t_quantile",
    "summarize_blocks",
]


@dataclass(frozen=True, slots=True)
class BlockSummary:
    """The mean of ``count`` block scores and its ``confidence`` interval ``[low, high]``
    (Student t with ``count - 1`` degrees of freedom). With fewer than two blocks there is
    no spread to measure: ``standard_deviation``, ``standard_error``, ``low`` and ``high``
    are ``None``."""

    count: int
    mean: float
    standard_deviation: float | None
    standard_error: float | None
    confidence: float
    low: float | None
    high: float | None

    @property
    def half_width(self) -> float | None:
        return None if self.low is None or self.high is None else (self.high - self.low) / 2

    def excludes(self, value: float) -> bool:
        """Whether ``value`` lies outside the interval (never, without an interval)."""
        return self.low is not None and self.high is not None and not self.low <= value <= self.high


def summarize_blocks(scores: Sequence[float], confidence: float = 0.95) -> BlockSummary:
    """The mean of per-block scores with a two-sided Student-t ``confidence`` interval."""
    _check_confidence(confidence)
    count = len(scores)
    if count == 0:
        raise ValueError("summarize_blocks: no block scores")
    mean = math.fsum(scores) / count
    if count < 2:
        return BlockSummary(count, mean, None, None, confidence, None, None)
    variance = math.fsum((score - mean) ** 2 for score in scores) / (count - 1)
    deviation = math.sqrt(variance)
    error = deviation / math.sqrt(count)
    half_width = student_t_quantile((1 + confidence) / 2, count - 1) * error
    return BlockSummary(
        count, mean, deviation, error, confidence, mean - half_width, mean + half_width
    )


# -- Student's t distribution ------------------------------------------------------------


def student_t_cdf(value: float, degrees_of_freedom: float) -> float:
    """P(T <= value) for Student's t with ``degrees_of_freedom`` (> 0)."""
    if not degrees_of_freedom > 0:
        raise ValueError(f"degrees of freedom must be positive, not {degrees_of_freedom}")
    # P(|T| > t) is the regularized incomplete beta I_x(df/2, 1/2) at x = df / (df + t^2).
    x = degrees_of_freedom / (degrees_of_freedom + value * value)
    tail = _regularized_incomplete_beta(x, degrees_of_freedom / 2, 0.5) / 2
    return 1 - tail if value > 0 else tail


@functools.lru_cache(maxsize=256)  # summaries ask for the same few quantiles again and again
def student_t_quantile(probability: float, degrees_of_freedom: float) -> float:
    """The value ``t`` with P(T <= t) = ``probability`` (0 < probability < 1), found by
    bisection on the distribution function to about twelve significant digits."""
    if not 0 < probability < 1:
        raise ValueError(f"probability must be between 0 and 1, not {probability}")
    if probability < 0.5:
        return -student_t_quantile(1 - probability, degrees_of_freedom)
    if probability == 0.5:
        return 0.0
    low, high = 0.0, 1.0
    while student_t_cdf(high, degrees_of_freedom) < probability:
        low, high = high, 2 * high
    for _ in range(200):
        middle = (low + high) / 2
        if student_t_cdf(middle, degrees_of_freedom) < probability:
            low = middle
        else:
            high = middle
        if high - low <= 1e-13 * high:
            break
    return (low + high) / 2


def _regularized_incomplete_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b), by its continued fraction (modified Lentz), on the side of ``x`` where
    the fraction converges quickly, the other side by the symmetry I_x(a,b) = 1 - I_1-x(b,a)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1 - _regularized_incomplete_beta(1 - x, b, a)
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    tiny = 1e-300
    numerator_term = 1.0
    denominator_term = 1 - (a + b) * x / (a + 1)
    if abs(denominator_term) < tiny:
        denominator_term = tiny
    denominator_term = 1 / denominator_term
    fraction = denominator_term
    for m in range(1, 10_000):
        # Even step: d_2m = m (b - m) x / ((a + 2m - 1)(a + 2m)).
        coefficient = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        denominator_term = 1 + coefficient * denominator_term
        numerator_term = 1 + coefficient / numerator_term
        denominator_term = 1 / (denominator_term if abs(denominator_term) >= tiny else tiny)
        numerator_term = numerator_term if abs(numerator_term) >= tiny else tiny
        fraction *= denominator_term * numerator_term
        # Odd step: d_2m+1 = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)).
        coefficient = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        denominator_term = 1 + coefficient * denominator_term
        numerator_term = 1 + coefficient / numerator_term
        denominator_term = 1 / (denominator_term if abs(denominator_term) >= tiny else tiny)
        numerator_term = numerator_term if abs(numerator_term) >= tiny else tiny
        step = denominator_term * numerator_term
        fraction *= step
        if abs(step - 1) < 1e-15:
            break
    return math.exp(log_front) * fraction / a


# -- the block bootstrap -----------------------------------------------------------------

_DRAWS_PER_CHUNK = 1 << 22  # block draws made at once (32 MB of them)


def bootstrap_means(
    columns: Sequence[Sequence[float]], *, seed: int, resamples: int = 1000
) -> list[tuple[float, ...]]:
    """Resample blocks with replacement ``resamples`` times and return, for each
    resample, the mean of every column over the drawn blocks.

    ``columns`` holds one sequence of per-block scores per player, all over the same
    blocks; every resample draws the same blocks for every column, so the players'
    resampled means stay comparable (e.g. to count how often one ranks above another).
    The draws come from ``random.Random(seed)``: the same seed gives the same resamples.
    """
    if not columns:
        raise ValueError("bootstrap_means: no columns")
    count = len(columns[0])
    if count == 0 or any(len(column) != count for column in columns):
        raise ValueError("bootstrap_means: every column needs the same, non-zero number of blocks")
    if resamples < 1:
        raise ValueError(f"bootstrap_means: resamples must be at least 1, not {resamples}")
    rng = random.Random(seed)
    indices = range(count)
    samples = []
    for _ in range(resamples):
        drawn = rng.choices(indices, k=count)
        samples.append(
            tuple(math.fsum(column[index] for index in drawn) / count for column in columns)
        )
    return samples


def bootstrap_partial_means(
    columns: Sequence[Sequence[float | None]], *, seed: int, resamples: int = 1000
) -> list[tuple[float | None, ...]]:
    """:func:`bootstrap_means` for columns with gaps: ``None`` where a player did not
    play a block (a tournament eliminates players; sections hold different players).

    Every resample draws blocks with replacement from all the blocks, exactly as
    :func:`bootstrap_means` does with the same ``seed`` (the same blocks are drawn), and
    each column's mean is taken over the drawn blocks it played (``None`` when it played
    none of them). Without gaps the two functions draw the same blocks and return the
    same means (up to the last bit of rounding: the sums are taken in another order).
    """
    import numpy as np

    if not columns:
        raise ValueError("bootstrap_partial_means: no columns")
    count = len(columns[0])
    if count == 0 or any(len(column) != count for column in columns):
        raise ValueError(
            "bootstrap_partial_means: every column needs the same, non-zero number of blocks"
        )
    if resamples < 1:
        raise ValueError(f"bootstrap_partial_means: resamples must be at least 1, not {resamples}")
    values = np.array([[0.0 if v is None else v for v in column] for column in columns]).T
    present = np.array([[v is not None for v in column] for column in columns], dtype=float).T
    samples: list[tuple[float | None, ...]] = []
    for drawn_rows in _drawn_counts(seed, count, resamples):
        for drawn in drawn_rows:
            totals = drawn @ values
            played = drawn @ present
            samples.append(
                tuple(
                    None if weight == 0 else float(total / weight)
                    for total, weight in zip(totals.tolist(), played.tolist(), strict=True)
                )
            )
    return samples


def _drawn_counts(seed: int, count: int, resamples: int) -> Iterator[Any]:
    """How often each of ``count`` blocks is drawn in each resample, a chunk of resamples
    (rows) at a time: exactly the draws of ``random.Random(seed).choices(range(count),
    k=count)`` repeated ``resamples`` times, made by NumPy. The generator is the same
    Mersenne Twister, started in the same state, and ``choices`` draws
    ``floor(random() * count)`` with the same 53-bit ``random()``, so the blocks drawn
    are the same, block for block (``tests/ratings/test_blocks.py`` checks it)."""
    import numpy as np

    _, state, _ = random.Random(seed).getstate()
    generator = np.random.RandomState()
    key, position = np.array(state[:624], dtype=np.uint32), int(state[624])
    generator.set_state(("MT19937", key, position, 0, 0.0))
    chunk = max(1, min(resamples, _DRAWS_PER_CHUNK // count))
    done = 0
    while done < resamples:
        rows = min(chunk, resamples - done)
        drawn = np.floor(generator.random_sample(rows * count) * float(count)).astype(np.int64)
        offsets = np.repeat(np.arange(rows, dtype=np.int64) * count, count)
        counts = np.bincount(drawn + offsets, minlength=rows * count)
        yield counts.reshape(rows, count).astype(float)
        done += rows


def percentile(ordered: Sequence[float], probability: float) -> float:
    """The ``probability`` quantile of sorted values, interpolated linearly between order
    statistics (the rule :func:`bootstrap_interval` uses)."""
    if not ordered:
        raise ValueError("percentile: no values")
    if not 0 <= probability <= 1:
        raise ValueError(f"probability must be between 0 and 1, not {probability}")
    return _quantile(ordered, probability)


def bootstrap_interval(
    scores: Sequence[float], *, seed: int, resamples: int = 1000, confidence: float = 0.95
) -> tuple[float, float]:
    """The percentile bootstrap ``confidence`` interval of the mean of per-block scores:
    the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of the resampled
    means, interpolated linearly between order statistics."""
    _check_confidence(confidence)
    means = sorted(
        sample[0] for sample in bootstrap_means([scores], seed=seed, resamples=resamples)
    )
    return _quantile(means, (1 - confidence) / 2), _quantile(means, (1 + confidence) / 2)


def _quantile(ordered: Sequence[float], probability: float) -> float:
    position = probability * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    weight = position - below
    return ordered[below] * (1 - weight) + ordered[above] * weight


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
