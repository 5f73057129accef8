"""Evidence against a zero-mean hypothesis that holds at any sample size: test
martingales, a p-value by Ville's inequality, and self-normalised z-scores to show
beside it.

A *statistic* is a sequence of steps ``X_1, X_2, ...`` in the order they were played,
each with a floor ``L_i >= 0`` known before it such that ``X_i >= -L_i``; under the
hypothesis each step has mean zero given every step before it (a martingale difference).
For each ``lambda`` of a fixed grid (:data:`LAMBDAS`)

    W_lambda = product over the steps of (1 + min(lambda, 0.9 / L_i) * X_i)

is then a non-negative martingale starting at 1: each bet is fixed before its step, each
factor is at least 0.1 and has mean 1 (a step with ``L_i = 0`` cannot go below 0, so it
is 0 and leaves the product alone). So is ``M``, the mean of ``W_lambda`` over the grid
and over several statistics of the same steps' filtration. By Ville's inequality the
chance that ``M`` ever reaches ``1 / alpha`` is at most ``alpha``, so

    p = min(1, 1 / M)

is a valid p-value after any number of steps, whatever their distribution: nothing is
assumed but the zero means and the floors. Only a floor is needed, no bound above. The
test is one-sided: steps that are positive more than chance allows make ``M`` grow. A
large ``lambda`` wins fastest against a large effect, a small one against a small effect
among noisy steps; averaging over the grid and the statistics costs at most a factor of
their number against the best chosen after the fact.

``z = sum X_i / sqrt(sum X_i^2)`` is each statistic's self-normalised sum: near a
standard normal for many steps under the hypothesis, for display; the flag is decided by
``p`` alone.

>>> evidence = Evidence(1)
>>> for _ in range(80):
...     evidence.add(0, 1, 2)  # every step half its floor, always positive
>>> evidence.z(0), evidence.steps(0)
(8.944, 80)
>>> result = evidence.result()
>>> result.flagged, result.p < 1e-6
(True, True)
>>> Evidence(2).result().p
1.0
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["FLAG_BELOW", "LAMBDAS", "Evidence", "EvidenceResult"]

# The bets of each statistic's test martingales, per unit of a step's value: 4, 2, 1, ...
# 1/32 (a step's floor may cap a bet below them).
LAMBDAS = tuple(2.0**-power for power in range(-2, 6))
# Never bet more than this share of what a step can lose: a factor stays above 0.1.
_MOST = 0.9
# A bot is flagged when p falls below this: at most one honest bot in a million is.
FLAG_BELOW = 1e-6


@dataclass(frozen=True, slots=True)
class EvidenceResult:
    """What the steps say: each statistic's ``z`` (``None`` before a step moved it) and
    number of ``steps``; the p-value ``p`` of all of them together and whether it is
    below :data:`FLAG_BELOW` (``flagged``); and ``log_wealth``, the natural logarithm of
    ``M`` (``p`` is ``min(1, exp(-log_wealth))``, kept because ``p`` underflows to 0 for
    a strong effect)."""

    z: tuple[float | None, ...]
    steps: tuple[int, ...]
    p: float
    flagged: bool
    log_wealth: float


class Evidence:
    """The running test of ``statistics`` statistics: steps added in the order they were
    played (each statistic's in its own order). Kept in flat arrays: an event holds one
    of these for every player."""

    __slots__ = ("_log_wealth", "_squares", "_steps", "_sums")

    def __init__(self, statistics: int) -> None:
        self._log_wealth = array("d", bytes(8 * statistics * len(LAMBDAS)))
        self._steps = array("q", bytes(8 * statistics))
        self._sums = array("d", bytes(8 * statistics))
        self._squares = array("d", bytes(8 * statistics))

    def add(self, statistic: int, value: Fraction | float, floor: Fraction | float) -> None:
        """One step of ``statistic``: its exact ``value`` and its ``floor``, fixed before it
        was played (``value >= -floor``)."""
        if floor < 0 or value < -floor:
            raise ValueError(f"a step of {value} is below its floor {-floor}")
        if value:
            room = math.inf if floor == 0 else _MOST / float(floor)
            number = float(value)
            wealth = self._log_wealth
            first = statistic * len(LAMBDAS)
            for index, bet in enumerate(LAMBDAS, start=first):
                wealth[index] += math.log1p(min(bet, room) * number)
            self._sums[statistic] += number
            self._squares[statistic] += number * number
        self._steps[statistic] += 1

    def z(self, statistic: int) -> float | None:
        squares = self._squares[statistic]
        return None if squares == 0 else round(self._sums[statistic] / math.sqrt(squares), 3)

    def steps(self, statistic: int) -> int:
        return self._steps[statistic]

    def log_wealth(self, statistics: Sequence[int]) -> float:
        """log M of ``statistics``: the log of the mean wealth over them and every bet
        (computed without overflow)."""
        size = len(LAMBDAS)
        every = [
            value
            for statistic in statistics
            for value in self._log_wealth[statistic * size : (statistic + 1) * size]
        ]
        top = max(every)
        return top + math.log(math.fsum(math.exp(value - top) for value in every) / len(every))

    def result(self, statistics: Sequence[int] | None = None) -> EvidenceResult:
        """The test of ``statistics`` together (default: all of them)."""
        chosen = range(len(self._steps)) if statistics is None else statistics
        log_wealth = self.log_wealth(chosen)
        p = 1.0 if log_wealth <= 0 else math.exp(-log_wealth)
        return EvidenceResult(
            z=tuple(self.z(statistic) for statistic in chosen),
            steps=tuple(int(self._steps[statistic]) for statistic in chosen),
            p=p,
            flagged=p < FLAG_BELOW,
            log_wealth=log_wealth,
        )
