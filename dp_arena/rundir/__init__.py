"""A run directory: its layout and the readers of its files (:class:`RunDir`), its
checkpoint store (:class:`RunStore`) and its lock (:class:`RunLock`).

Below the tournament, the runner, the ratings and the leaderboard, which all read or
write run directories: none of them spells out a file's name, they ask :class:`RunDir`.
"""

from __future__ import annotations

from dp_arena.rundir.layout import RunDir
from dp_arena.rundir.lock import RunLock, refuse_if_running
from dp_arena.rundir.store import RunStore

__all__ = ["RunDir", "RunLock", "RunStore", "refuse_if_running"]
