"""Agreement between two orders of the same competitors: Kendall's tau-b and Spearman's
rho, both handling ties, for telling how well an event recovered the true order.

Orders are given as scores (higher is better; equal scores tie), e.g. duplicate scores,
or minus the finishing place.

>>> truth = {"a": 3, "b": 2, "c": 1}
>>> kendall_tau(truth, {"a": 30, "b": 20, "c": 10}), kendall_tau(truth, {"a": 1, "b": 2, "c": 3})
(1.0, -1.0)
>>> round(kendall_tau(truth, {"a": 2, "b": 3, "c": 1}), 4)  # one pair of three swapped
0.3333
>>> spearman_rho(truth, {"a": 2, "b": 3, "c": 1})
0.5
"""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["average_ranks", "kendall_tau", "spearman_rho"]


def _common(first: Mapping[str, float], second: Mapping[str, float]) -> list[str]:
    if set(first) != set(second):
        raise ValueError(
            f"the orders rank different competitors: {sorted(set(first) ^ set(second))}"
        )
    if len(first) < 2:
        raise ValueError("an order of fewer than two competitors has no agreement")
    return sorted(first)


def kendall_tau(first: Mapping[str, float], second: Mapping[str, float]) -> float:
    """Kendall's tau-b: (concordant - discordant pairs) / sqrt((pairs - ties in the
    first) x (pairs - ties in the second)); 0 when either order ties everyone."""
    names = _common(first, second)
    concordant = discordant = tied_first = tied_second = 0
    for index, one in enumerate(names):
        for other in names[index + 1 :]:
            a = (first[one] > first[other]) - (first[one] < first[other])
            b = (second[one] > second[other]) - (second[one] < second[other])
            if a == 0:
                tied_first += 1
            if b == 0:
                tied_second += 1
            if a * b > 0:
                concordant += 1
            elif a * b < 0:
                discordant += 1
    pairs = len(names) * (len(names) - 1) // 2
    denominator = math.sqrt((pairs - tied_first) * (pairs - tied_second))
    return 0.0 if denominator == 0 else (concordant - discordant) / denominator


def average_ranks(scores: Mapping[str, float]) -> dict[str, float]:
    """Rank 1 for the highest score; tied scores share the mean of their ranks."""
    ordered = sorted(scores, key=lambda name: -scores[name])
    ranks: dict[str, float] = {}
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and scores[ordered[end + 1]] == scores[ordered[start]]:
            end += 1
        for name in ordered[start : end + 1]:
            ranks[name] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman_rho(first: Mapping[str, float], second: Mapping[str, float]) -> float:
    """Spearman's rho: the Pearson correlation of the average ranks; 0 when either
    order ties everyone."""
    names = _common(first, second)
    x, y = average_ranks(first), average_ranks(second)
    mean_x = sum(x.values()) / len(names)
    mean_y = sum(y.values()) / len(names)
    covariance = sum((x[n] - mean_x) * (y[n] - mean_y) for n in names)
    spread = math.sqrt(
        sum((x[n] - mean_x) ** 2 for n in names) * sum((y[n] - mean_y) ** 2 for n in names)
    )
    return 0.0 if spread == 0 else covariance / spread
