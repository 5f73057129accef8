"""Ray RLlib support: the observation-key wrapper RLlib's action masking needs, and an
environment creator for ``ray.tune.registry.register_env``.

RLlib's action-masking RL module (new API stack) reads the observation dict's
``"observations"`` and ``"action_mask"``; PettingZoo names the first ``"observation"``.
:class:`RLlibObservationKeys` renames it, and :func:`rllib_env` builds the whole
stack, ``PettingZooEnv(RLlibObservationKeys(capped_holdem_v0.env(**config)))``::

    from ray.tune.registry import register_env
    from dp_arena.envs.aec.rllib import rllib_env

    register_env("capped_holdem", rllib_env)

It lives in the package (not in an example script) so that RLlib's remote env runners
can import it. Ray is imported only when :func:`rllib_env` runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

__all__ = ["RLlibObservationKeys", "rllib_env"]


class RLlibObservationKeys(BaseWrapper[str, dict[str, np.ndarray], int]):
    """Renames the observation dict's ``"observation"`` to ``"observations"``."""

    def __init__(self, env: AECEnv[str, dict[str, np.ndarray], int]) -> None:
        super().__init__(env)
        self._observation_spaces = {
            agent: spaces.Dict(
                {
                    "observations": env.observation_space(agent)["observation"],
                    "action_mask": env.observation_space(agent)["action_mask"],
                }
            )
            for agent in env.possible_agents
        }

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        observation = self.env.observe(agent)
        return {
            "observations": observation["observation"],
            "action_mask": observation["action_mask"],
        }


def rllib_env(config: dict[str, Any] | None = None) -> Any:
    """An RLlib ``PettingZooEnv`` of :mod:`~dp_arena.envs.capped_holdem_v0` (or of
    :mod:`~dp_arena.envs.duplicate_holdem_v0` when ``config["tables"]`` is given); the
    other ``config`` entries are the environment's arguments."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from dp_arena.envs.aec import capped_holdem, duplicate_holdem

    arguments = dict(config or {})
    module = duplicate_holdem if "tables" in arguments else capped_holdem
    return PettingZooEnv(RLlibObservationKeys(module.env(**arguments)))
