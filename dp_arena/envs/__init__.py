"""Environments for learning: PettingZoo AEC environments of capped hold'em (one table,
and mirrored duplicate tables), the observation encoding, the discrete actions, and the
wrappers (Gymnasium single-agent, RLlib key renaming).

Import the environment modules as PettingZoo's are imported::

    from dp_arena.envs import capped_holdem_v0, duplicate_holdem_v0

    env = capped_holdem_v0.env(num_players=6, betting="pot-limit")

This package imports NumPy, Gymnasium and PettingZoo; :mod:`dp_arena.engine` and
:mod:`dp_arena.agents` never import it.
"""

from __future__ import annotations

from dp_arena.envs import capped_holdem_v0, discrete_actions, duplicate_holdem_v0, encoding, single_agent
from dp_arena.envs.single_agent import SingleAgentEnv

__all__ = [
    "SingleAgentEnv",
    "capped_holdem_v0",
    "discrete_actions",
    "duplicate_holdem_v0",
    "encoding",
    "single_agent",
]

single_agent.register()
