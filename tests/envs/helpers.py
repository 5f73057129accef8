"""Shared helpers of the environment tests: PettingZoo's checks with their known
advisory warnings filtered, simple deterministic bots, and the vector env played beside
single envs in lockstep."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import SyncVectorEnv

from dp_arena.agents import Observation
from dp_arena.engine import Action
from dp_arena.envs.gym.single_agent import ENV_ID
from dp_arena.envs.gym.single_agent_vector import SingleAgentVectorEnv

with warnings.catch_warnings():
    # pettingzoo.test imports PettingZoo's connect-four example through a deprecated path.
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test, seed_test

__all__ = [
    "ADVISORY",
    "Caller",
    "FoldToRaise",
    "MinRaiser",
    "api_test",
    "play_in_lockstep",
    "run_quietly",
    "seed_test",
]

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


def play_in_lockstep(
    batch_opponents: list[Any],
    table_opponents: list[Any],
    *,
    seed: int,
    steps: int,
    tables: int = 6,
    **options: Any,
) -> SingleAgentVectorEnv:
    """Play the vector env's batch against ``batch_opponents`` beside ``SyncVectorEnv``
    over single envs against ``table_opponents``, a random legal learner action at every
    table, and require every array of every step to be equal; the vector env, closed."""
    vector = SingleAgentVectorEnv(num_envs=tables, opponents=batch_opponents, **options)
    assert vector.batched
    oracle = SyncVectorEnv(
        [lambda: gymnasium.make(ENV_ID, opponents=table_opponents, **options)] * tables
    )
    observations, infos = vector.reset(seed=seed)
    expected, expected_infos = oracle.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        assert np.array_equal(observations, expected)
        assert np.array_equal(infos["action_mask"], expected_infos["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in infos["action_mask"]])
        observations, rewards, terminated, _, infos = vector.step(actions)
        expected, expected_rewards, expected_terminated, _, expected_infos = oracle.step(actions)
        assert np.array_equal(rewards, expected_rewards)
        assert np.array_equal(terminated, expected_terminated)
    oracle.close()
    vector.close()
    return vector
