"""The flat observation format: the vector as a ``Box`` and the mask beside it, taken as
they are by PettingZoo's and Gymnasium's checks, SuperSuit's observation wrappers and a
CleanRL-style vector loop; the same game as the dict format, step for step."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env

import dp_arena.envs  # noqa: F401  (registers the Gymnasium id)
from dp_arena.envs import capped_holdem_v0, duplicate_holdem_v0
from dp_arena.envs.gym.single_agent import ENV_ID
from dp_arena.errors import ConfigError
from tests.envs.helpers import api_test, run_quietly, seed_test

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import supersuit

# A flat observation is a NumPy Box, so api_test's dict-observation advice does not
# arise; only the duplicate env's agent names draw advice.
NAMING = (r"We recommend agents to be named in the format",)


@pytest.mark.parametrize(("num_players", "betting"), [(2, "no-limit"), (6, "pot-limit")])
def test_pettingzoo_api_and_seed_tests_pass_flat(num_players: int, betting: str) -> None:
    def make():  # type: ignore[no-untyped-def]
        return capped_holdem_v0.env(
            num_players=num_players, betting=betting, deals=num_players, observation_format="flat"
        )

    env = make()
    assert isinstance(env.observation_space("player_0"), spaces.Box)
    run_quietly(api_test, env, num_cycles=200, allow=())
    run_quietly(seed_test, make, 200, allow=())


def test_duplicate_env_passes_the_api_test_flat() -> None:
    env = duplicate_holdem_v0.env(num_players=2, tables=2, deals=2, observation_format="flat")
    run_quietly(api_test, env, num_cycles=200, allow=NAMING)


def test_gymnasium_check_env_flat() -> None:
    env = gymnasium.make(ENV_ID, opponents=["random", "tag"], observation_format="flat")
    check_env(env.unwrapped, skip_render_check=True)
    observation, info = env.reset(seed=2)
    assert env.observation_space.contains(observation)
    assert (info["action_mask"] == env.unwrapped.action_masks()).all()


def test_flat_and_dict_formats_play_the_same_game() -> None:
    flat = capped_holdem_v0.env(num_players=3, deals=6, observation_format="flat")
    nested = capped_holdem_v0.env(num_players=3, deals=6)
    flat.reset(seed=8)
    nested.reset(seed=8)
    rng = np.random.default_rng(1)
    for agent, other in zip(flat.agent_iter(), nested.agent_iter(), strict=True):
        assert agent == other
        observation, reward, terminated, truncated, info = flat.last()
        expected, expected_reward, *_ = nested.last()
        assert (observation == expected["observation"]).all() and reward == expected_reward
        if terminated or truncated:
            action = None
        else:
            assert (info["action_mask"] == expected["action_mask"]).all()
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        flat.step(action)
        nested.step(action)


def test_supersuit_observation_wrappers_take_the_aec_env_as_it_is() -> None:
    env = capped_holdem_v0.env(num_players=2, deals=4, observation_format="flat")
    env = supersuit.dtype_v0(env, np.float64)
    env = supersuit.normalize_obs_v0(env, env_min=0, env_max=1)
    env = supersuit.frame_stack_v1(env, 3)
    env = supersuit.flatten_v0(env)
    env.reset(seed=4)
    length = 145
    assert env.observation_space("player_0").shape == (3 * length,)
    rng = np.random.default_rng(0)
    steps = 0
    for _agent in env.agent_iter():
        observation, _, terminated, truncated, info = env.last()
        assert observation.shape == (3 * length,) and observation.dtype == np.float64
        assert observation.min() >= 0.0 and observation.max() <= 1.0
        action = None
        if not (terminated or truncated):
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            steps += 1
        env.step(action)
    assert steps > 4


def test_supersuit_wrappers_take_the_gymnasium_env_as_it_is() -> None:
    env = gymnasium.make(ENV_ID, opponents=["calling-station"], deals=4, observation_format="flat")
    env = supersuit.frame_stack_v1(supersuit.dtype_v0(env, np.float64), 2)
    observation, info = env.reset(seed=1)
    assert observation.shape == (2 * 145,)
    observation, *_ = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
    assert observation.shape == (2 * 145,)


def test_a_cleanrl_style_vector_loop_masks_its_logits_from_the_infos() -> None:
    """CleanRL's PPO loop over ``SyncVectorEnv``: a Box batch of observations, the masks
    from ``infos["action_mask"]``, masked logits, Gymnasium's autoreset."""
    envs = gymnasium.vector.SyncVectorEnv(
        [
            lambda: gymnasium.make(ENV_ID, opponents=["random"], deals=2, observation_format="flat")
            for _ in range(4)
        ]
    )
    observations, infos = envs.reset(seed=0)
    weights = np.random.default_rng(0).normal(size=(145, envs.single_action_space.n))
    assert observations.shape == (4, 145)
    episodes = 0
    for _ in range(200):
        masks = infos["action_mask"].astype(bool)
        # After an episode ends Gymnasium's next step resets; its action is ignored.
        masks[~masks.any(axis=1)] = True
        logits = np.where(masks, observations @ weights, -np.inf)
        actions = logits.argmax(axis=1)
        observations, _, terminated, _, infos = envs.step(actions)
        episodes += int(terminated.sum())
    assert episodes > 0
    envs.close()


def test_an_unknown_observation_format_is_refused() -> None:
    with pytest.raises(ConfigError) as caught:
        capped_holdem_v0.env(observation_format="nested")
    assert caught.value.field == "observation_format"
