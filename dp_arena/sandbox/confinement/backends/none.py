"""The ``none`` mode: no namespaces could be made here (or ``DP_ARENA_SANDBOX=none``), so
the bot is an ordinary process under its limits and the syscall filter and, as root,
its own uid. It has network access and sees the host's files, and a warning says so."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from dp_arena.sandbox.confinement.backends.base import (
    Backend,
    Enclosure,
    Isolation,
    is_root,
    world_reachable,
)
from dp_arena.sandbox.confinement.command import SandboxCommand, minimal_env
from dp_arena.sandbox.confinement.mounts import python_runtime

__all__ = ["NoneBackend"]


class NoneBackend(Backend):
    """No isolation but the limits, the filter and a uid of its own."""

    mode: ClassVar[str] = "none"

    def describe(self, refused: Sequence[str] = ()) -> Isolation:
        """What is left without namespaces; ``refused``: why each better mode did not
        work here (none: this mode was forced)."""
        import shutil

        warning = (
            "no namespaces could be made ("
            + ("; ".join(refused) if refused else "forced by DP_ARENA_SANDBOX")
            + "): the bot has network access, sees the host's files and a setsid child may"
            " outlive it; install bubblewrap (apt-get install bubblewrap) for real isolation"
        )
        own_uid = (
            is_root()
            and shutil.which("setpriv") is not None
            and all(world_reachable(path) for path in python_runtime())
        )
        return self._guarantees(own_uid=own_uid, warning=warning)

    def _confine(self, inner: list[str], enclosure: Enclosure) -> SandboxCommand:
        return SandboxCommand(tuple(inner), minimal_env(), str(enclosure.bot_dir), enclosure.uid)
