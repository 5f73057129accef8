"""The isolation backends, one class per mode, best first: to add a mode, write its
:class:`~dp_arena.sandbox.confinement.backends.base.Backend` in a file of its own here
and name it in :data:`BACKENDS` (``docs/architecture.md`` says what else changes)."""

from __future__ import annotations

from dp_arena.sandbox.confinement.backends.base import Backend
from dp_arena.sandbox.confinement.backends.bubblewrap import BubblewrapBackend
from dp_arena.sandbox.confinement.backends.none import NoneBackend
from dp_arena.sandbox.confinement.backends.unshare import UnshareBackend

__all__ = ["BACKENDS", "MODES", "backend"]

# Every mode, best first: detection tries them in this order, and ``none`` is the last.
BACKENDS: dict[str, Backend] = {
    "bubblewrap": BubblewrapBackend(),
    "unshare": UnshareBackend(),
    "none": NoneBackend(),
}
MODES = tuple(BACKENDS)


def backend(mode: str) -> Backend:
    """The backend of ``mode`` (one of :data:`MODES`)."""
    return BACKENDS[mode]
