"""The registry of formats: each event format's name and the module that implements it,
the one place where the rest of the tournament reaches a format.

A format is an object with the :class:`~dp_arena.tournament.interface.EventFormat`
interface, in a subpackage of :mod:`dp_arena.tournament` of its own family. Adding one is
one line in :data:`FORMATS` (``"name": "module:attribute"``); modules are imported only
when their format is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dp_arena.tournament.interface import EventFormat

__all__ = ["FORMATS", "get_format"]

FORMATS: dict[str, str] = {
    "regular": "dp_arena.tournament.regular.format:REGULAR",
    "short": "dp_arena.tournament.short.format:SHORT",
    "sng-short": "dp_arena.tournament.short.format:SNG_SHORT",
    "sng-round-robin": "dp_arena.tournament.short.round_robin_sng:SNG_ROUND_ROBIN",
    "quickplay": "dp_arena.tournament.quickplay.format:QUICK_PLAY",
    "cash": "dp_arena.tournament.cash.format:CASH",
    "classic": "dp_arena.tournament.classic.format:CLASSIC",
}


def get_format(name: str) -> EventFormat:
    """The format called ``name``; ``KeyError`` names the known formats."""
    if name not in FORMATS:
        raise KeyError(f"unknown format {name!r}; known: {', '.join(FORMATS)}")
    module_name, attribute = FORMATS[name].split(":")
    event_format: EventFormat = getattr(importlib.import_module(module_name), attribute)
    return event_format
