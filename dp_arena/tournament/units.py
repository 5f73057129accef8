"""Deprecated: the unit of work moved to :mod:`dp_arena.units`. Its names are still given
here, each with a :class:`DeprecationWarning` saying where it lives now."""

from __future__ import annotations

from typing import Any

from dp_arena.lazy import moved_module

_MOVED = frozenset(
    {
        "Executor",
        "Located",
        "SeatAssignment",
        "SerialExecutor",
        "TableUnit",
        "open_player_seat",
        "prepare_units",
        "run_unit",
    }
)

__all__ = sorted(_MOVED)


def __getattr__(name: str) -> Any:
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return moved_module(f"{__name__}.{name}", f"dp_arena.units:{name}")
