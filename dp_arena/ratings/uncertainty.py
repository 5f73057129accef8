"""Rankings with honest uncertainty: each competitor's mean duplicate score with a block
bootstrap confidence interval, its rank interval and chance of ranking first, the
chance that one beats another, and how many deals would separate two of them.

Everything comes from one set of resamples of whole blocks
(:func:`~dp_arena.ratings.blocks.bootstrap_partial_means`): a resample draws as many
blocks as there are, with replacement, and every competitor's mean is recomputed over
the drawn blocks it played, so the competitors of one resample stay comparable. In a
resample that drew none of a competitor's blocks (only possible with very few blocks)
its mean is taken to be its observed mean.

How many deals separate two competitors: with ``N`` blocks the bootstrap standard error
of their difference is ``se``; it shrinks as ``1/sqrt(N)``, so a true difference of
``margin`` is detected by a two-sided test at ``confidence`` with probability ``power``
after ``N x ((z_conf + z_power) x se / margin)^2`` blocks, each block being one deal
played at all the mirrored tables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from dp_arena.ratings.blocks import bootstrap_partial_means, percentile
from dp_arena.ratings.duplicate import ScoreMatrix

__all__ = ["Ranked", "Ranking", "deals_needed", "rank_with_uncertainty"]


@dataclass(frozen=True, slots=True)
class Ranked:
    """One competitor's line of a ranking. Scores are mbb per deal: ``mean`` over the
    ``blocks`` it played (``plays`` plays in all); ``deviation`` is the standard deviation
    of its block scores, ``error`` the bootstrap standard error of its mean and
    ``low``..``high`` the bootstrap percentile interval; ``rank_low``..``rank_high`` the
    interval of its rank over the resamples and ``first`` the share of resamples in which
    it ranks first (ties share)."""

    name: str
    rank: int
    mean: float
    blocks: int
    plays: int
    deviation: float | None
    error: float
    low: float
    high: float
    rank_low: int
    rank_high: int
    first: float


@dataclass(frozen=True, slots=True)
class Ranking:
    """Competitors best first, with ``beats[i][j]`` the share of resamples in which
    ``entries[i]`` has the higher mean than ``entries[j]`` (ties count half; ``None`` on
    the diagonal) and ``difference_errors[i][j]`` the bootstrap standard error of the
    difference of their means. ``blocks`` is how many blocks the events had."""

    entries: tuple[Ranked, ...]
    beats: tuple[tuple[float | None, ...], ...]
    difference_errors: tuple[tuple[float | None, ...], ...]
    blocks: int
    resamples: int
    seed: int
    confidence: float

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(entry.name for entry in self.entries)

    def entry(self, name: str) -> Ranked:
        return self.entries[self.names.index(name)]

    def p_beats(self, first: str, second: str) -> float:
        value = self.beats[self.names.index(first)][self.names.index(second)]
        if value is None:
            raise ValueError(f"{first!r} is compared with itself")
        return value

    def deals_to_separate(self, first: str, second: str, margin: float, power: float = 0.8) -> int:
        """Deals (blocks) needed to tell ``first`` and ``second`` apart if their true
        means differed by ``margin`` mbb per deal (see the module's docstring)."""
        error = self.difference_errors[self.names.index(first)][self.names.index(second)]
        if error is None:
            raise ValueError(f"{first!r} is compared with itself")
        return deals_needed(error, self.blocks, margin, confidence=self.confidence, power=power)


def deals_needed(
    difference_error: float,
    blocks: int,
    margin: float,
    *,
    confidence: float = 0.95,
    power: float = 0.8,
) -> int:
    """Blocks needed so that a true difference of ``margin`` is found significant at
    ``confidence`` (two-sided) with probability ``power``, when ``blocks`` blocks gave the
    difference a standard error of ``difference_error``.

    >>> deals_needed(10.0, 100, 28.0)  # ((1.96 + 0.8416) x 10 / 28)^2 x 100 = 100.1
    101
    """
    if not margin > 0:
        raise ValueError(f"margin must be positive, not {margin}")
    if not 0 < power < 1 or not 0 < confidence < 1:
        raise ValueError("confidence and power must be between 0 and 1")
    normal = NormalDist()
    z = normal.inv_cdf((1 + confidence) / 2) + normal.inv_cdf(power)
    # Rounded to 9 digits first so that float noise cannot add a deal.
    return max(1, math.ceil(round(blocks * (z * difference_error / margin) ** 2, 9)))


def rank_with_uncertainty(
    matrix: ScoreMatrix, *, seed: int, resamples: int = 1000, confidence: float = 0.95
) -> Ranking:
    """Rank the competitors of ``matrix`` by mean block score, with the bootstrap's
    intervals, rank intervals, chance of ranking first and pairwise chances."""
    import numpy as np

    if not matrix.names:
        raise ValueError("nothing to rank: no scored plays")
    observed = [float(matrix.mean(name)) for name in matrix.names]
    samples = bootstrap_partial_means(matrix.scores, seed=seed, resamples=resamples)
    means = np.array(
        [
            [observed[column] if value is None else value for column, value in enumerate(sample)]
            for sample in samples
        ]
    )  # resamples x competitors
    ranks = 1 + (means[:, None, :] > means[:, :, None]).sum(axis=2)  # 1 + how many are higher
    ties_at_top = (ranks == 1).sum(axis=1, keepdims=True)
    first = ((ranks == 1) / ties_at_top).mean(axis=0)
    count = len(matrix.names)
    wins = (means[:, :, None] > means[:, None, :]).mean(axis=0)
    draws = (means[:, :, None] == means[:, None, :]).mean(axis=0)
    differences = means[:, :, None] - means[:, None, :]
    errors = differences.std(axis=0, ddof=1) if resamples > 1 else np.zeros((count, count))
    # The ranking itself: by the observed mean (exact), then name for a stable order.
    order = sorted(
        range(count), key=lambda index: (-matrix.mean(matrix.names[index]), matrix.names[index])
    )
    lower, upper = (1 - confidence) / 2, (1 + confidence) / 2
    entries = []
    for index in order:
        name = matrix.names[index]
        played = matrix.played(name)
        column = sorted(means[:, index].tolist())
        rank_column = sorted(ranks[:, index].tolist())
        entries.append(
            Ranked(
                name=name,
                rank=1 + sum(matrix.mean(other) > matrix.mean(name) for other in matrix.names),
                mean=observed[index],
                blocks=len(played),
                plays=matrix.plays[index],
                deviation=_deviation(played),
                error=float(np.std(means[:, index], ddof=1)) if resamples > 1 else 0.0,
                low=percentile(column, lower),
                high=percentile(column, upper),
                rank_low=math.floor(percentile(rank_column, lower)),
                rank_high=math.ceil(percentile(rank_column, upper)),
                first=float(first[index]),
            )
        )
    beats = tuple(
        tuple(None if i == j else float(wins[i, j] + draws[i, j] / 2) for j in order) for i in order
    )
    difference_errors = tuple(
        tuple(None if i == j else float(errors[i, j]) for j in order) for i in order
    )
    return Ranking(
        entries=tuple(entries),
        beats=beats,
        difference_errors=difference_errors,
        blocks=len(matrix.blocks),
        resamples=resamples,
        seed=seed,
        confidence=confidence,
    )


def _deviation(values: list[float]) -> float | None:
    if len(values) < 2:
        return None
    mean = math.fsum(values) / len(values)
    return math.sqrt(math.fsum((value - mean) ** 2 for value in values) / (len(values) - 1))
