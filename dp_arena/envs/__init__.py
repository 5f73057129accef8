"""Environments for learning: PettingZoo AEC environments of capped hold'em (one table,
and mirrored duplicate tables), the observation encoding, the discrete actions, and the
wrappers (Gymnasium single-agent, RLlib observation keys).

Import the environment modules as PettingZoo's are imported::

    from dp_arena.envs import capped_holdem_v0, duplicate_holdem_v0

    env = capped_holdem_v0.env(num_players=6, betting="pot-limit")

Submodules load when first used, so a bot that needs only the discrete actions does not
import PettingZoo (nor Gymnasium, which a sandboxed bot's Python does not offer).
Importing this package, where Gymnasium is installed, registers the Gymnasium single-agent
environment as ``"dp_arena/CappedHoldem-v0"``, with the native vector environment
(:mod:`dp_arena.envs.single_agent_vector`) as its ``vector_entry_point``. :mod:`dp_arena.engine` and
:mod:`dp_arena.agents` never import this package.
"""

from __future__ import annotations

from types import ModuleType

from dp_arena.engine import native
from dp_arena.lazy import lazy_names

gymnasium: ModuleType | None
try:
    import gymnasium
except ImportError:  # a sandboxed bot's Python offers NumPy, not Gymnasium: nothing to register
    gymnasium = None

__all__ = [
    "SingleAgentEnv",
    "SingleAgentVectorEnv",
    "capped_holdem_v0",
    "discrete_actions",
    "duplicate_holdem_v0",
    "encoding",
    "native_opponents",
    "rllib",
    "single_agent",
    "single_agent_vector",
]

native.extend(__name__, __path__)  # the compiled encoding, when built

if gymnasium is not None and "dp_arena/CappedHoldem-v0" not in gymnasium.registry:
    gymnasium.register(
        id="dp_arena/CappedHoldem-v0",
        entry_point="dp_arena.envs.single_agent:SingleAgentEnv",
        vector_entry_point="dp_arena.envs.single_agent_vector:SingleAgentVectorEnv",
    )


# The environments load when first used: a bot that needs only the discrete actions loads
# neither PettingZoo nor Gymnasium.
_CLASSES = {"SingleAgentEnv": "single_agent", "SingleAgentVectorEnv": "single_agent_vector"}
lazy_names(__name__, _CLASSES, modules=[name for name in __all__ if name not in _CLASSES])
