"""LearnedBot: a linear policy trained with dp-arena's own duplicate environment.

Its weights, ``learned_weights.json`` beside this file, were trained by ``dp-arena train
--config configs/learned.toml``: self-play against a league of the built-in bots, its
own frozen snapshots and the weights it started from, ``learned_fitted_weights.json``
(fitted Monte-Carlo control on the vector environment against every other built-in bot,
heads-up and six-handed: ``configs/learned-fitted.toml``); ``learned_weights.md`` beside
it is the training card (data, time, opponents, results; see ``docs/envs.md``).

Its logits are the estimated values of the actions, in units of the pot. It answers
every decision with their softmax at a temperature of 0.1 (:data:`TEMPERATURE`), a mixed
strategy the dealer draws from: an action worth a tenth of the pot less than the best is
played e times less often than it, one worth two pots less under a billionth as often
(and so not at all: the dealer keeps probabilities to nine decimal places). Measured in
heads-up matches of 1,000 deals against every other built-in, that plays as well as the
greedy policy within the matches' noise, and it makes the bot harder to read; the luck
of the dealer's draws is taken out of its luck-adjusted score (docs/rankings.md).
``LearnedBot(temperature=None)`` plays the most valuable legal action, deterministically;
``LearnedBot(weights="other.json")`` plays other weights.
"""

from __future__ import annotations

from pathlib import Path

from dp_arena.learn.bot import PolicyBot
from dp_arena.learn.policy import LinearPolicy

WEIGHTS = Path(__file__).resolve().with_name("learned_weights.json")
TEMPERATURE = 0.1


class LearnedBot(PolicyBot):
    def __init__(
        self, weights: str | Path | None = None, temperature: float | None = TEMPERATURE
    ) -> None:
        super().__init__(LinearPolicy.load(weights or WEIGHTS), temperature)
