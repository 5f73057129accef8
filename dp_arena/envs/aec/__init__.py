"""The PettingZoo wing: capped hold'em as AEC environments (one table, and mirrored
duplicate tables) over the shared session machinery, and the RLlib wrapper. Their
versioned names, ``dp_arena.envs.capped_holdem_v0`` and ``duplicate_holdem_v0``, are the
entry points."""
