"""A bot that learns, with NumPy only: hand-crafted features, a linear policy, training by
self-play against a league of the built-in bots and the learner's own snapshots (or
REINFORCE on the duplicate environment), and a heads-up duplicate evaluation.

``dp-arena train`` runs :func:`dp_arena.learn.train.train` and writes the weights the
built-in ``learned`` bot (``agents/learned.py``) plays.

Names load when first used: a bot that plays a policy (``from dp_arena.learn import
PolicyBot``) imports neither the training loop nor the evaluation, and so neither the
environments nor the match runner they stand on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dp_arena.lazy import lazy_names

if TYPE_CHECKING:
    from dp_arena.learn.bot import PolicyBot
    from dp_arena.learn.evaluate import DuplicateScore, duplicate_score
    from dp_arena.learn.league import League
    from dp_arena.learn.policy import LinearPolicy, SoftmaxPolicy
    from dp_arena.learn.selfplay import SelfPlayConfig, train_self_play
    from dp_arena.learn.train import EpisodeReport, TrainConfig, train

__all__ = [
    "DuplicateScore",
    "EpisodeReport",
    "League",
    "LinearPolicy",
    "PolicyBot",
    "SelfPlayConfig",
    "SoftmaxPolicy",
    "TrainConfig",
    "duplicate_score",
    "train",
    "train_self_play",
]

lazy_names(
    __name__,
    {
        "DuplicateScore": "evaluate",
        "EpisodeReport": "train",
        "League": "league",
        "LinearPolicy": "policy",
        "PolicyBot": "bot",
        "SelfPlayConfig": "selfplay",
        "SoftmaxPolicy": "policy",
        "TrainConfig": "train",
        "duplicate_score": "evaluate",
        "train": "train",
        "train_self_play": "selfplay",
    },
)
