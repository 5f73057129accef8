"""Environments for learning: PettingZoo AEC environments of capped hold'em (one table,
and mirrored duplicate tables), the observation encoding, the discrete actions, and the
wrappers (Gymnasium single-agent, RLlib observation keys).

The package has three wings over one encoding (``docs/architecture.md`` draws them):
``aec/``, the PettingZoo environments and RLlib's wrapper; ``batch/``, the rules, cards,
encoding and opponents as arrays across many tables; ``gym/``, the Gymnasium environments
over those two. The modules every wing uses sit at the top: the observation encoding, the
discrete actions, the deals of a session and the opponents (a policy played as a bot, the
native opponents).

Import the environment modules as PettingZoo's are imported::

    from dp_arena.envs import capped_holdem_v0, duplicate_holdem_v0

    env = capped_holdem_v0.env(num_players=6, betting="pot-limit")

Submodules load when first used, so a bot that needs only the discrete actions does not
import PettingZoo (nor Gymnasium, which a sandboxed bot's Python does not offer).
Importing this package, where Gymnasium is installed, registers the Gymnasium single-agent
environment as ``"dp_arena/CappedHoldem-v0"``, with the native vector environment
(:mod:`dp_arena.envs.gym.single_agent_vector`) as its ``vector_entry_point``.
:mod:`dp_arena.engine` and :mod:`dp_arena.agents` never import this package. The modules'
old names (``dp_arena.envs.batch_engine``, ``dp_arena.envs.single_agent``, ...) still
import, with a warning naming the new one.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

from dp_arena.engine import native
from dp_arena.lazy import lazy_names

if TYPE_CHECKING:
    from dp_arena.envs.gym.single_agent import SingleAgentEnv
    from dp_arena.envs.gym.single_agent_vector import SingleAgentVectorEnv

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
        entry_point="dp_arena.envs.gym.single_agent:SingleAgentEnv",
        vector_entry_point="dp_arena.envs.gym.single_agent_vector:SingleAgentVectorEnv",
    )


# Where each module lived before the wings, and lives now.
MOVED = {
    "batch_cards": "dp_arena.envs.batch.cards",
    "batch_encoding": "dp_arena.envs.batch.encoding",
    "batch_engine": "dp_arena.envs.batch.engine",
    "batch_players": "dp_arena.envs.batch.players",
    "batch_tables": "dp_arena.envs.batch.tables",
    "batch_tag": "dp_arena.envs.batch.tag",
    "rllib": "dp_arena.envs.aec.rllib",
    "session_env": "dp_arena.envs.aec.session",
    "single_agent": "dp_arena.envs.gym.single_agent",
    "single_agent_vector": "dp_arena.envs.gym.single_agent_vector",
    "vector_tables": "dp_arena.envs.gym.vector_tables",
}

# The environments load when first used: a bot that needs only the discrete actions loads
# neither PettingZoo nor Gymnasium.
_CLASSES = {
    "SingleAgentEnv": "gym.single_agent",
    "SingleAgentVectorEnv": "gym.single_agent_vector",
}
lazy_names(
    __name__,
    _CLASSES,
    modules=[name for name in __all__ if name not in _CLASSES and name not in MOVED],
    moved=MOVED,
)
