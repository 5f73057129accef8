"""LearnedBot: a linear policy trained with dp-arena's own duplicate environment.

Its weights, ``learned_weights.json`` beside this file, were trained by ``dp-arena train
--config configs/learned.toml`` (fitted Monte-Carlo control on the vector environment
against every other built-in bot, heads-up and six-handed); ``learned_training.md``
beside it is the training card (data, time, opponents, results; see ``docs/envs.md``).
It plays the legal action of the largest estimated value, so it is deterministic.
``LearnedBot(weights="other.json")`` plays other weights.
"""

from __future__ import annotations

from pathlib import Path

from dp_arena.learn.bot import PolicyBot
from dp_arena.learn.policy import LinearPolicy

WEIGHTS = Path(__file__).resolve().with_name("learned_weights.json")


class LearnedBot(PolicyBot):
    def __init__(self, weights: str | Path | None = None) -> None:
        super().__init__(LinearPolicy.load(weights or WEIGHTS))
