"""RLlib: the observation-key wrapper (always), and PPO training through RLlib's
PettingZoo wrapper (behind the ``rl`` marker: it needs PyTorch and ``ray[rllib]``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dp_arena.envs import capped_holdem_v0
from dp_arena.envs.aec.rllib import RLlibObservationKeys
from tests.envs.helpers import ADVISORY, api_test, run_quietly

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rllib_train.py"


def test_observation_keys_wrapper_passes_the_api_test() -> None:
    env = RLlibObservationKeys(capped_holdem_v0.env(num_players=3, deals=3))
    # Without an "observation" key api_test inspects the mask of agents whose episode is
    # over; all zeros is right for them: they have no action left.
    run_quietly(
        api_test, env, num_cycles=100, allow=(*ADVISORY, r"Action mask numpy array is all zeros")
    )
    env.reset(seed=1)
    observation = env.observe(env.agent_selection)
    assert set(observation) == {"observations", "action_mask"}
    assert env.observation_space(env.agent_selection).contains(observation)


@pytest.mark.rl
def test_rllib_pettingzoo_wrapper_plays_whole_episodes() -> None:
    pytest.importorskip("ray.rllib")
    from dp_arena.envs.aec.rllib import rllib_env

    env = rllib_env({"num_players": 2, "deals": 4})
    observations, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    total = 0.0
    for _ in range(1000):
        ((agent, observation),) = observations.items()
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observations, rewards, terminateds, _, _ = env.step({agent: action})
        total += sum(rewards.values())
        if terminateds["__all__"]:
            break
    assert terminateds["__all__"]
    assert total == pytest.approx(0.0)  # a zero-sum table: the rewards paid out sum to zero


@pytest.mark.rl
@pytest.mark.timeout(900)
def test_rllib_ppo_example_trains_and_its_exported_bot_plays_a_match(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("ray.rllib")
    environment = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONWARNINGS": "ignore"}
    exported = tmp_path / "policy.json"
    completed = subprocess.run(
        [
            sys.executable,
            str(EXAMPLE),
            "--iterations",
            "2",
            "--batch",
            "256",
            "--export",
            str(exported),
        ],
        capture_output=True,
        text=True,
        timeout=840,
        env=environment,
        cwd=EXAMPLE.parents[1],
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    lines = [line for line in completed.stdout.splitlines() if line.startswith("iteration")]
    assert len(lines) == 2
    steps = [int(line.split(":")[1].split()[0]) for line in lines]
    assert steps[0] >= 256 and steps[1] > steps[0]  # it sampled our env and trained twice
    # The export reproduced RLlib's logits (the example checks before writing); a duplicate
    # match scores the bot that plays it.
    match = subprocess.run(
        [
            sys.executable,
            "-m",
            "dp_arena.cli",
            "match",
            f"{EXAMPLE.with_name('rllib_bot.py')}:RLlibBot",
            "random",
            "--deals",
            "20",
            "--seed",
            "1",
            "--trusted",
            "--quiet",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**environment, "RLLIB_POLICY": str(exported)},
        cwd=EXAMPLE.parents[1],
    )
    assert match.returncode == 0, match.stderr[-3000:]
    assert "RLlibBot" in match.stdout and "faults" in match.stdout


def test_the_example_without_the_rl_extra_says_what_to_install() -> None:
    try:
        import ray.rllib  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("the rl extra is installed")
    completed = subprocess.run(
        [sys.executable, str(EXAMPLE), "--iterations", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=EXAMPLE.parents[1],
    )
    assert completed.returncode == 2
    assert "needs the rl extra" in completed.stderr and "[rl]" in completed.stderr
