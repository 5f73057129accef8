"""Deprecated: the unit of work moved to :mod:`dp_arena.units`. Its names are still given
here, each with a :class:`DeprecationWarning` saying where it lives now."""

from __future__ import annotations

import warnings
from typing import Any

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
    warnings.warn(
        f"dp_arena.tournament.units.{name} moved: import it from dp_arena.units",
        DeprecationWarning,
        stacklevel=2,
    )
    from dp_arena import units

    return getattr(units, name)
