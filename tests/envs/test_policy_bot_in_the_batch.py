"""A bot that plays a linear policy over the features of the observation vectors plays in
the vector environment's batch exactly as at a table: the policy is asked about many
tables at once in the batch (a frozen snapshot, greedy; or its softmax at a temperature,
drawn as a dealer draws it) and about one decision at a time by ``PolicyBot`` in the
single environment, and every array of every step is the same."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dp_arena.learn import LinearPolicy, PolicyBot, SoftmaxPolicy
from tests.envs.helpers import play_in_lockstep


@pytest.mark.parametrize(("seats", "temperature"), [(2, None), (6, None), (2, 0.5), (6, 0.5)])
def test_a_policy_bot_plays_in_the_batch_as_at_a_table(
    seats: int, temperature: float | None
) -> None:
    policy = LinearPolicy.zeros(feature_set="vector")
    policy.weights[:] = np.random.default_rng(seats).normal(size=policy.weights.shape)
    bot = PolicyBot(policy, temperature)
    snapshot: Any = policy if temperature is None else SoftmaxPolicy(policy, temperature)
    assert bot.batch_policy() is policy or isinstance(bot.batch_policy(), SoftmaxPolicy)
    vector = play_in_lockstep(
        [snapshot] * (seats - 1),
        [bot] * (seats - 1),
        seed=seats,
        steps=60,
        deals=2 * seats,
        observation_format="flat",
    )
    assert not vector.opponent_faults
