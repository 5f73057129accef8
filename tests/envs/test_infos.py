"""``infos`` are plain data: they pickle (so Gymnasium's ``AsyncVectorEnv`` and
Stable-Baselines3's ``SubprocVecEnv`` can send them between processes), they stay true
after later steps (so a replay buffer can keep them), and a deep copy of an environment
shares nothing with the original. The typed observation they hold is the one a bot's
``act()`` receives, and its vector equals the environment's own observation."""

from __future__ import annotations

import copy
import multiprocessing
import pickle
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AsyncVectorEnv

import dp_arena.envs  # noqa: F401  (registers the Gymnasium id, in worker processes too)
from dp_arena.agents import Observation, observe
from dp_arena.envs import capped_holdem_v0
from dp_arena.envs.encoding import encode, encode_hand
from dp_arena.envs.gym.single_agent import ENV_ID


def _env():  # type: ignore[no-untyped-def]
    env = capped_holdem_v0.env(num_players=3, deals=3)
    env.reset(seed=11)
    return env


def test_the_gymnasium_reset_info_pickles_and_reads_back_equal() -> None:
    env = gymnasium.make(ENV_ID, opponents=["random"])
    _, info = env.reset(seed=0)
    copied = pickle.loads(pickle.dumps(info))
    assert copied.keys() == {"observation", "action_mask"}
    assert copied["observation"] == info["observation"]
    assert isinstance(copied["observation"], Observation)
    assert (copied["action_mask"] == info["action_mask"]).all()


def test_an_info_kept_past_its_step_reads_as_it_was() -> None:
    env = _env()
    agent = env.agent_selection
    info = env.infos[agent]
    raw = env.unwrapped
    table, seat = raw.seat_of[agent]
    expected = observe(raw.hands[table], seat, raw.contexts[table][seat])
    mask = env.observe(agent)["action_mask"].copy()
    for _ in range(3):
        env.step(1)  # check or call: the table moves on, the kept info must not
    assert info["observation"] == expected
    assert "observation" in info and len(info) == 2
    assert info.get("observation") == expected
    assert dict(info)["observation"] == expected and copy.copy(info)["observation"] == expected
    assert (info["action_mask"] == mask).all()
    assert expected.to_call == 20 and not expected.history  # the first to act, three-handed


def test_a_deep_copy_plays_on_without_touching_the_original() -> None:
    env = gymnasium.make(ENV_ID, opponents=["random", "calling-station"], deals=6)
    _, info = env.reset(seed=5)
    snapshot = copy.deepcopy(info)
    clone = copy.deepcopy(env)
    for _ in range(4):  # the clone plays on
        _, _, terminated, _, clone_info = clone.step(1)
        if terminated:
            break
    assert info["observation"] == snapshot["observation"]
    assert clone_info is not info
    # The original, played the same way, gives what a fresh environment gives.
    fresh = gymnasium.make(ENV_ID, opponents=["random", "calling-station"], deals=6)
    fresh.reset(seed=5)
    for _ in range(4):
        original = env.step(1)
        expected = fresh.step(1)
        assert original[1:4] == expected[1:4]
        assert (original[0]["observation"] == expected[0]["observation"]).all()
        assert original[4].get("observation") == expected[4].get("observation")
        if original[2]:
            break


def _make_env() -> gymnasium.Env[Any, int]:
    return gymnasium.make(ENV_ID, opponents=["random"], deals=4)


@pytest.mark.usefixtures("no_multiprocessing_helpers_left")
def test_async_vector_env_gives_what_the_sync_vector_env_gives() -> None:
    asynchronous = AsyncVectorEnv([_make_env, _make_env], context="spawn")
    synchronous = gymnasium.vector.SyncVectorEnv([_make_env, _make_env])
    try:
        observations, infos = asynchronous.reset(seed=3)
        _, expected_infos = synchronous.reset(seed=3)
        assert observations["observation"].shape == (2, 145)
        assert list(infos["observation"]) == list(expected_infos["observation"])
        actions = np.ones(2, dtype=np.int64)  # check or call: always legal
        for _ in range(30):
            observations, rewards, terminated, _, infos = asynchronous.step(actions)
            expected = synchronous.step(actions)
            assert (observations["observation"] == expected[0]["observation"]).all()
            assert (rewards == expected[1]).all() and (terminated == expected[2]).all()
            assert list(infos.get("observation", ())) == list(expected[4].get("observation", ()))
        assert all(isinstance(item, Observation) for item in infos["observation"] if item)
    finally:
        asynchronous.close()
        synchronous.close()


def _subprocess_worker(remote: Any, seed: int) -> None:
    """What Stable-Baselines3's ``SubprocVecEnv`` worker does: reset and step an
    environment, and send every result through a pipe (which pickles it)."""
    env = gymnasium.make(ENV_ID, opponents=["random", "tag"], deals=3)
    observation, reset_info = env.reset(seed=seed)
    remote.send((observation, reset_info))
    for _ in range(10):
        result = env.step(1)
        if result[2]:
            observation, reset_info = env.reset()
            result = (*result, reset_info)
        remote.send(result)
    remote.close()


@pytest.mark.usefixtures("no_multiprocessing_helpers_left")
def test_infos_cross_processes_as_subproc_vec_env_sends_them() -> None:
    context = multiprocessing.get_context("spawn")  # SubprocVecEnv's default, but forkserver
    parent, child = context.Pipe()
    process = context.Process(target=_subprocess_worker, args=(child, 9), daemon=True)
    process.start()
    try:
        observation, reset_info = parent.recv()
        assert isinstance(reset_info["observation"], Observation)
        assert set(np.flatnonzero(observation["observation"][:52])) == set(
            reset_info["observation"].hole_cards
        )
        received = [parent.recv() for _ in range(10)]
    finally:
        process.join(timeout=60)
    assert process.exitcode == 0
    assert all(len(item) in (5, 6) for item in received)
    # Replayed here, the same seed gives the same transitions.
    env = gymnasium.make(ENV_ID, opponents=["random", "tag"], deals=3)
    env.reset(seed=9)
    for item in received:
        expected = env.step(1)
        assert item[1:4] == expected[1:4]
        assert item[4].get("observation") == expected[4].get("observation")
        if expected[2]:
            env.reset()


@pytest.mark.parametrize("seed", range(5))
def test_vectors_from_the_hand_equal_vectors_from_the_observation(seed: int) -> None:
    env = capped_holdem_v0.env(num_players=4, deals=4)
    env.reset(seed=seed)
    raw = env.unwrapped
    steps = 0
    for agent in env.agent_iter():
        _, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        table, seat = raw.seat_of[agent]
        hand = raw.hands[table]
        for other in raw.agents:
            other_table, other_seat = raw.seat_of[other]
            assert (
                encode_hand(
                    raw.hands[other_table], other_seat, raw.contexts[other_table][other_seat]
                )
                == encode(raw.view(other))
            ).all()
        assert (
            encode_hand(hand, seat, raw.contexts[table][seat]) == encode(info["observation"])
        ).all()
        assert (info["action_mask"] == env.observe(agent)["action_mask"]).all()
        mask = env.observe(agent)["action_mask"]
        env.step(int(mask.nonzero()[0][-1]))
        steps += 1
    assert steps > 0


def _make_flat_env() -> gymnasium.Env[Any, int]:
    return gymnasium.make(ENV_ID, opponents=["random"], deals=2, observation_format="flat")


@pytest.mark.rl
@pytest.mark.usefixtures("no_multiprocessing_helpers_left")
def test_stable_baselines3_subproc_vec_env_runs_the_env() -> None:
    vec_env = pytest.importorskip("stable_baselines3.common.vec_env")
    envs = vec_env.SubprocVecEnv([_make_flat_env, _make_flat_env])
    try:
        envs.seed(4)
        observations = envs.reset()
        assert observations.shape == (2, 145)
        for _ in range(20):
            observations, rewards, dones, infos = envs.step(np.ones(2, dtype=np.int64))
            assert len(infos) == 2 and all("action_mask" in info for info in infos)
            for info, done in zip(infos, dones, strict=True):
                if done:  # SB3 resets at once and keeps the last observation in the info
                    assert info["terminal_observation"].shape == (145,)
                else:
                    assert isinstance(info["observation"], Observation)
        assert np.isfinite(rewards).all()
    finally:
        envs.close()
