"""The learned bot in the vector environment's batch plays exactly as the bot at a table:
its policy, over the features of the observation vectors, is asked about many tables at
once in the batch and about one decision at a time by ``agents/learned.py`` in the
single environment, its softmax drawn from as a dealer draws it on both sides (and its
greedy play, a frozen snapshot's, alike), and every array of every step is the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import SyncVectorEnv

import dp_arena.envs  # noqa: F401  (registers the Gymnasium id)
from dp_arena.agents.spec import AGENTS_DIR, load_agent
from dp_arena.envs.single_agent import ENV_ID
from dp_arena.envs.single_agent_vector import SingleAgentVectorEnv
from dp_arena.learn import LinearPolicy

GREEDY = f"{Path(__file__).resolve().parents[1] / 'agents' / 'greedy_learned.py'}:Greedy"


@pytest.mark.parametrize(("seats", "greedy"), [(2, False), (6, False), (2, True), (6, True)])
def test_the_learned_bot_plays_in_the_batch_as_the_bot_plays_at_a_table(
    seats: int, greedy: bool
) -> None:
    bot: Any = load_agent("learned")
    assert bot.policy.feature_set == "vector" and bot.temperature == 0.1
    if greedy:  # a frozen snapshot of the policy in the batch, the greedy bot at a table
        policy = LinearPolicy.load(AGENTS_DIR / "learned_weights.json")
        batch_opponents: list[Any] = [policy] * (seats - 1)
        table_opponents: list[Any] = [GREEDY] * (seats - 1)
    else:  # the spec on both sides: the batch draws its softmax as the dealer does
        batch_opponents = table_opponents = ["learned"] * (seats - 1)
    common: dict[str, Any] = {"deals": 2 * seats, "observation_format": "flat"}
    vector = SingleAgentVectorEnv(num_envs=6, opponents=batch_opponents, **common)
    assert vector.batched
    oracle = SyncVectorEnv(
        [lambda: gymnasium.make(ENV_ID, opponents=table_opponents, **common) for _ in range(6)]
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
