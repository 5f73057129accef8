"""A bot that learns, with NumPy only: hand-crafted features, a linear softmax policy,
REINFORCE on the duplicate environment, and a heads-up duplicate evaluation.

``dp-arena train`` runs :func:`dp_arena.learn.train.train` and writes the weights the
built-in ``learned`` bot (``agents/learned.py``) plays.
"""

from __future__ import annotations

from dp_arena.learn.bot import PolicyBot
from dp_arena.learn.evaluate import DuplicateScore, duplicate_score
from dp_arena.learn.policy import LinearPolicy
from dp_arena.learn.train import EpisodeReport, TrainConfig, train

__all__ = [
    "DuplicateScore",
    "EpisodeReport",
    "LinearPolicy",
    "PolicyBot",
    "TrainConfig",
    "duplicate_score",
    "train",
]
