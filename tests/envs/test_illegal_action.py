"""What a masked action does, as reinforcement-learning libraries send them: it raises an
error that names the action and the mask and crosses process boundaries whole, or, with
``illegal_action="fallback"``, it is played as check/call and counted in the infos; and
every row of every step offers a legal action, so a masked softmax never turns to NaN."""

from __future__ import annotations

import pickle
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv

import dp_arena.envs  # noqa: F401  (registers the Gymnasium id)
from dp_arena.envs import SingleAgentEnv, capped_holdem_v0, duplicate_holdem_v0
from dp_arena.envs.gym.single_agent import ENV_ID
from dp_arena.envs.gym.single_agent_vector import SingleAgentVectorEnv
from dp_arena.errors import ConfigError, IllegalActionError, IllegalReason


def _first_masked(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask == 0)[0])


def test_a_masked_action_raises_an_error_that_names_it_and_pickles() -> None:
    env = SingleAgentEnv(opponents=["calling-station"], deals=2)
    _, info = env.reset(seed=3)
    # Heads-up the learner (seat 0) is the button on deal 0: it owes the small blind, so
    # fold is legal; after a check-call the big blind checks... play until a fold is masked.
    while info["action_mask"][0]:
        _, _, terminated, _, info = env.step(1)
        assert not terminated
    with pytest.raises(IllegalActionError) as raised:
        env.step(0)
    error = raised.value
    assert error.reason is IllegalReason.NOTHING_TO_FOLD
    assert "action 0 (fold) is masked" in str(error) and "action_mask is [0, 1" in str(error)
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.reason, str(copy), copy.action) == (
        IllegalActionError,
        error.reason,
        str(error),
        error.action,
    )


def _make_calling_env() -> gymnasium.Env[Any, Any]:
    # The big blind: the button calls, and folding is masked (nothing is owed).
    return gymnasium.make(ENV_ID, opponents=["calling-station"], learner_seat=1, deals=2)


@pytest.mark.usefixtures("no_multiprocessing_helpers_left")
def test_async_vector_env_raises_the_workers_error_with_its_message() -> None:
    """Gymnasium's AsyncVectorEnv pickles a worker's error and raises ``type(error)(error)``."""
    envs = AsyncVectorEnv([_make_calling_env, _make_calling_env], context="fork")
    # Gymnasium logs the worker's error and trace through warnings as it raises it.
    with warnings.catch_warnings(record=True) as logged:
        warnings.simplefilter("always")
        try:
            _, infos = envs.reset(seed=0)
            actions = np.array([_first_masked(mask) for mask in infos["action_mask"]])
            with pytest.raises(IllegalActionError, match=r"is masked.*action_mask is \[") as raised:
                envs.step(actions)
        finally:
            envs.close(terminate=True)
    assert raised.value.reason is IllegalReason.NOTHING_TO_FOLD
    assert any("action_mask is [0, 1" in str(warning.message) for warning in logged)


def test_an_unknown_option_is_refused() -> None:
    with pytest.raises(ConfigError, match="illegal_action must be one of") as raised:
        SingleAgentEnv(illegal_action="ignore")
    assert raised.value.field == "illegal_action"
    with pytest.raises(ConfigError, match="illegal_action"):
        SingleAgentVectorEnv(num_envs=2, illegal_action="clip")
    with pytest.raises(ConfigError, match="illegal_action"):
        capped_holdem_v0.env(illegal_action=None)


def test_fallback_plays_check_call_and_counts_it() -> None:
    """The same session played with masked actions under fallback and with check/call."""
    fallback = SingleAgentEnv(opponents=["random"], deals=30, illegal_action="fallback")
    plain = SingleAgentEnv(opponents=["random"], deals=30)
    _, info = fallback.reset(seed=8)
    _, expected_info = plain.reset(seed=8)
    assert info["illegal_actions"] == 0 and info["illegal_action"] is False
    rng = np.random.default_rng(2)
    replaced = 0
    while True:
        mask = info["action_mask"]
        assert np.array_equal(mask, expected_info["action_mask"])
        masked = not mask.all() and rng.random() < 0.5
        action = _first_masked(mask) if masked else int(rng.choice(np.flatnonzero(mask)))
        observation, reward, terminated, _, info = fallback.step(action)
        expected, expected_reward, expected_terminated, _, expected_info = plain.step(
            1 if masked else action
        )
        replaced += masked
        assert info["illegal_action"] is masked
        assert info["illegal_actions"] == replaced
        assert np.array_equal(observation["observation"], expected["observation"])
        assert (reward, terminated) == (expected_reward, expected_terminated)
        if terminated:
            break
    assert replaced > 3
    # An index outside the action space is a bug, not a masked action: it still raises.
    fallback.reset(seed=8)
    with pytest.raises(IllegalActionError, match="outside Discrete"):
        fallback.step(9)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_the_vector_env_falls_back_as_the_single_env_does(mode: AutoresetMode) -> None:
    kwargs: dict[str, Any] = {
        "opponents": ["random", "calling-station"],
        "deals": 3,
        "illegal_action": "fallback",
        "observation_format": "flat",
    }
    vector = SingleAgentVectorEnv(num_envs=4, autoreset_mode=mode, **kwargs)
    oracle = SyncVectorEnv(
        [lambda: gymnasium.make(ENV_ID, **kwargs) for _ in range(4)], autoreset_mode=mode
    )
    observations, infos = vector.reset(seed=5)
    expected, expected_infos = oracle.reset(seed=5)
    rng = np.random.default_rng(1)
    replaced = 0
    for _ in range(80):
        masks = infos["action_mask"]
        assert np.array_equal(masks, expected_infos["action_mask"])
        assert np.array_equal(infos["illegal_actions"], expected_infos["illegal_actions"])
        # Any action, masked or not: plain PPO samples all of them.
        actions = rng.integers(0, masks.shape[1], size=4)
        observations, rewards, terminated, _, infos = vector.step(actions)
        expected, expected_rewards, expected_terminated, _, expected_infos = oracle.step(actions)
        assert np.array_equal(observations, expected)
        assert np.array_equal(rewards, expected_rewards)
        assert np.array_equal(terminated, expected_terminated)
        assert np.array_equal(infos["illegal_action"], expected_infos["illegal_action"])
        replaced += int(infos["illegal_action"].sum())
        if "final_info" in expected_infos:
            ours, theirs = infos["final_info"], expected_infos["final_info"]
            for key in ("action_mask", "illegal_action", "illegal_actions"):
                assert np.array_equal(ours[key][terminated], theirs[key][terminated])
            replaced += int(ours["illegal_action"][terminated].sum())
    assert replaced > 20


def test_the_vector_env_refuses_a_masked_action_naming_the_table() -> None:
    vector = SingleAgentVectorEnv(
        num_envs=3, opponents=["calling-station"], learner_seat=1, deals=2
    )
    _, infos = vector.reset(seed=0)
    actions = np.ones(3, dtype=np.int64)
    actions[2] = _first_masked(infos["action_mask"][2])
    with pytest.raises(IllegalActionError, match=r"environment 2: action \d .* action_mask is"):
        vector.step(actions)
    assert "illegal_action" not in infos  # counted only under fallback


def test_the_aec_envs_fall_back_and_count_per_agent() -> None:
    for env in (
        capped_holdem_v0.env(deals=4, illegal_action="fallback"),
        duplicate_holdem_v0.env(tables=2, deals=2, illegal_action="fallback"),
    ):
        env.reset(seed=4)
        counts: dict[str, int] = {}
        for agent in env.agent_iter():
            observation, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            assert info["illegal_actions"] == counts.get(agent, 0)
            mask = observation["action_mask"]
            if not mask.all():
                env.step(_first_masked(mask))
                counts[agent] = counts.get(agent, 0) + 1
            else:
                env.step(1)
        assert sum(counts.values()) > 2


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
def test_every_row_of_every_step_has_a_legal_action(mode: str) -> None:
    """A masked softmax over the rows (the policy's logits where the mask is 1, minus
    infinity elsewhere) is finite on every row, the rows of ended episodes too."""
    vector = SingleAgentVectorEnv(
        num_envs=16, opponents=["random"], deals=2, autoreset_mode=mode, observation_format="flat"
    )
    _, infos = vector.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        masks = infos["action_mask"].astype(bool)
        logits = np.where(masks, rng.normal(size=masks.shape), -np.inf)
        probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        assert np.isfinite(probabilities).all()
        actions = np.array([rng.choice(len(row), p=row) for row in probabilities])
        _, _, terminated, _, infos = vector.step(actions)
        ended += int(terminated.sum())
        if mode == "Disabled" and terminated.any():
            _, reset_infos = vector.reset(options={"reset_mask": terminated})
            infos["action_mask"] = reset_infos["action_mask"]
    assert ended > 16
    single = SingleAgentEnv(opponents=["random"], deals=2)
    single.reset(seed=1)
    while True:
        observation, _, terminated, _, info = single.step(1)
        if terminated:
            break
    assert info["action_mask"].tolist() == observation["action_mask"].tolist() == [0, 1, 0, 0, 0, 0]
    assert single.action_masks().tolist() == [0, 1, 0, 0, 0, 0]
