"""The environment's versioned name, as PettingZoo names its environments: ``env`` and
``raw_env`` of :mod:`dp_arena.envs.aec.duplicate_holdem`, where its docstring gives its
observations, actions and rewards."""

from __future__ import annotations

from dp_arena.envs.aec.duplicate_holdem import env, raw_env

__all__ = ["env", "raw_env"]
