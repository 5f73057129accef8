"""Shared helpers of the environment tests: PettingZoo's checks with their known
advisory warnings filtered, and simple deterministic bots."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

from dp_arena.agents import Observation
from dp_arena.engine import Action

with warnings.catch_warnings():
    # pettingzoo.test imports PettingZoo's connect-four example through a deprecated path.
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test, seed_test

__all__ = ["ADVISORY", "Caller", "FoldToRaise", "MinRaiser", "api_test", "run_quietly", "seed_test"]

# api_test's advice that does not fit a dict-observation card game it does not list by
# name (it exempts PettingZoo's own poker environments from the same advice), and its
# naming advice (`<descriptor>_<number>`), which the duplicate env's required
# `t{table}_p{seat}` names cannot follow. Any other warning fails the test.
ADVISORY = (
    r"Observation is not a NumPy array",
    r"Observation space for each agent probably should be gymnasium\.spaces\.box",
    r"We recommend agents to be named in the format",
)


def run_quietly(
    check: Callable[..., Any], *args: Any, allow: tuple[str, ...] = ADVISORY, **kwargs: Any
) -> None:
    """Run a PettingZoo check; only the ``allow``-listed advisory warnings may be raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(*args, **kwargs)
    unexpected = [
        str(w.message) for w in caught if not any(re.search(p, str(w.message)) for p in allow)
    ]
    assert not unexpected, unexpected


class MinRaiser:
    """Raises the minimum once per street when it may, otherwise checks or calls."""

    def act(self, observation: Observation) -> Action:
        raised = any(
            r.seat == observation.seat and r.street == observation.street and r.raise_to
            for r in observation.history
        )
        if observation.min_raise_to is not None and not raised:
            return Action.raise_to(observation.min_raise_to)
        return Action.call() if observation.to_call else Action.check()


class Caller:
    def act(self, observation: Observation) -> Action:
        return Action.call() if observation.to_call else Action.check()


class FoldToRaise:
    """Folds whenever more than a big blind is owed, otherwise checks or calls."""

    def act(self, observation: Observation) -> Action:
        if observation.to_call > observation.big_blind:
            return Action.fold()
        return Action.call() if observation.to_call else Action.check()
