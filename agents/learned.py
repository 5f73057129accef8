"""LearnedBot: a linear policy trained with dp-arena's own duplicate environment.

Its weights, ``learned_weights.json`` beside this file, were trained by ``dp-arena
train`` (REINFORCE on :mod:`dp_arena.envs.duplicate_holdem_v0` against the random bot
and the calling station; see ``docs/envs.md``). It plays the policy's most likely legal
action, so it is deterministic. ``LearnedBot(weights="other.json")`` plays other weights.
"""

from __future__ import annotations

from pathlib import Path

from dp_arena.learn.bot import PolicyBot
from dp_arena.learn.policy import LinearPolicy

WEIGHTS = Path(__file__).resolve().with_name("learned_weights.json")


class LearnedBot(PolicyBot):
    def __init__(self, weights: str | Path | None = None) -> None:
        super().__init__(LinearPolicy.load(weights or WEIGHTS))
