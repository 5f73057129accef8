"""A bot that plays a linear policy over the features of the observation vectors plays in
the vector environment's batch exactly as at a table: the policy is asked about many
tables at once in the batch (a frozen snapshot, greedy; or its softmax at a temperature,
drawn as a dealer draws it) and about one decision at a time by ``PolicyBot`` in the
single environment, and every array of every step is the same."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import SyncVectorEnv

import dp_arena.envs  # noqa: F401  (registers the Gymnasium id)
from dp_arena.envs.single_agent import ENV_ID
from dp_arena.envs.single_agent_vector import SingleAgentVectorEnv
from dp_arena.learn import LinearPolicy, PolicyBot, SoftmaxPolicy


@pytest.mark.parametrize(("seats", "temperature"), [(2, None), (6, None), (2, 0.5), (6, 0.5)])
def test_a_policy_bot_plays_in_the_batch_as_at_a_table(
    seats: int, temperature: float | None
) -> None:
    policy = LinearPolicy.zeros(feature_set="vector")
    policy.weights[:] = np.random.default_rng(seats).normal(size=policy.weights.shape)
    bot = PolicyBot(policy, temperature)
    snapshot: Any = policy if temperature is None else SoftmaxPolicy(policy, temperature)
    assert bot.batch_policy() is policy or isinstance(bot.batch_policy(), SoftmaxPolicy)
    common: dict[str, Any] = {"deals": 2 * seats, "observation_format": "flat"}
    vector = SingleAgentVectorEnv(num_envs=6, opponents=[snapshot] * (seats - 1), **common)
    assert vector.batched
    oracle = SyncVectorEnv(
        [lambda: gymnasium.make(ENV_ID, opponents=[bot] * (seats - 1), **common)] * 6
    )
    observations, infos = vector.reset(seed=seats)
    expected, expected_infos = oracle.reset(seed=seats)
    rng = np.random.default_rng(seats)
    for _ in range(60):
        assert np.array_equal(observations, expected)
        assert np.array_equal(infos["action_mask"], expected_infos["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in infos["action_mask"]])
        observations, rewards, terminated, _, infos = vector.step(actions)
        expected, expected_rewards, expected_terminated, _, expected_infos = oracle.step(actions)
        assert np.array_equal(rewards, expected_rewards)
        assert np.array_equal(terminated, expected_terminated)
    assert not vector.opponent_faults
    oracle.close()
