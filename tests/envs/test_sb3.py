"""Stable-Baselines3 as it is (behind the ``rl`` marker: it needs PyTorch): plain PPO,
which samples masked actions, trains through ``SubprocVecEnv`` worker processes with
``illegal_action="fallback"`` and closes cleanly; sb3-contrib's MaskablePPO example
trains and scores its policy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "maskable_ppo.py"


def _make_fallback_env() -> Any:
    import gymnasium

    import dp_arena.envs  # noqa: F401  (registers the Gymnasium id)

    return gymnasium.make(
        "dp_arena/CappedHoldem-v0",
        opponents=["random"],
        deals=4,
        observation_format="flat",
        illegal_action="fallback",
    )


@pytest.mark.rl
@pytest.mark.timeout(600)
@pytest.mark.usefixtures("no_multiprocessing_helpers_left")
def test_plain_ppo_trains_with_subproc_vec_env_and_closes() -> None:
    pytest.importorskip("torch")
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import SubprocVecEnv

    class CountFallbacks(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.steps = 0
            self.fallbacks = 0
            self.rewards: list[float] = []

        def _on_step(self) -> bool:
            infos = self.locals["infos"]
            self.steps += len(infos)
            self.fallbacks += sum(int(info["illegal_action"]) for info in infos)
            self.rewards.extend(float(reward) for reward in self.locals["rewards"])
            return True

    envs = SubprocVecEnv([_make_fallback_env, _make_fallback_env])
    closed = False
    try:
        model = PPO("MlpPolicy", envs, n_steps=128, batch_size=64, n_epochs=2, seed=0)
        counter = CountFallbacks()
        model.learn(total_timesteps=512, callback=counter)
        assert counter.steps >= 512
        # An untrained PPO samples every action, masked ones too: each was played as
        # check/call and counted, and training went on.
        assert 0 < counter.fallbacks < counter.steps
        assert np.isfinite(counter.rewards).all()
        envs.close()
        closed = True
        assert all(not process.is_alive() for process in envs.processes)
    finally:
        if not closed:
            for process in envs.processes:
                process.terminate()


@pytest.mark.rl
@pytest.mark.timeout(600)
def test_maskable_ppo_example_trains_and_scores_its_policy() -> None:
    pytest.importorskip("sb3_contrib")
    completed = subprocess.run(
        [
            sys.executable,
            str(EXAMPLE),
            "--timesteps",
            "512",
            "--eval-sessions",
            "4",
            "--opponent",
            "calling-station",
        ],
        capture_output=True,
        text=True,
        timeout=540,
        cwd=EXAMPLE.parents[1],
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "trained 512 timesteps against calling-station" in completed.stdout
    assert "big blinds per deal" in completed.stdout
