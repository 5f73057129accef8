"""The format registry: event format names and the modules that implement them.

A format is an object with the :class:`EventFormat` interface. Adding one is one line
in :data:`FORMATS` (``"name": "module:attribute"``); modules are imported only when
their format is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from dp_arena.results import TableSessionResult
    from dp_arena.tournament.config import EventConfig, FormatDefaults, Problem
    from dp_arena.tournament.outcomes import EventResult, RoundRobinOutcome, SessionOutcome
    from dp_arena.tournament.plan import EventPlan
    from dp_arena.tournament.units import Executor, TableUnit

__all__ = ["FORMATS", "EventFormat", "NullObserver", "RunObserver", "Runtime", "get_format"]

FORMATS: dict[str, str] = {
    "regular": "dp_arena.tournament.regular:REGULAR",
    "short": "dp_arena.tournament.short:SHORT",
    "sng-short": "dp_arena.tournament.short:SNG_SHORT",
    "sng-round-robin": "dp_arena.tournament.rr_sng:SNG_ROUND_ROBIN",
    "quickplay": "dp_arena.tournament.quickplay:QUICK_PLAY",
    "cash": "dp_arena.tournament.cash:CASH",
    "classic": "dp_arena.tournament.classic:CLASSIC",
}


class RunObserver(Protocol):
    """Told what happens while an event runs: for progress displays, hand histories
    and checkpoints. Every method may do nothing."""

    def units_started(self, label: str, units: list[TableUnit]) -> None: ...

    def unit_finished(self, unit: TableUnit, result: TableSessionResult) -> None: ...

    def session_finished(self, outcome: SessionOutcome | RoundRobinOutcome) -> None: ...


class EventFormat(Protocol):
    """One event format: its defaults, what it accepts, its plan, and how it is played.
    A format class subclasses this one for the default of its optional check."""

    name: str
    title: str
    defaults: FormatDefaults

    def check_players(self, count: int) -> str | None:
        """``None``, or why the format cannot be played by ``count`` entrants."""
        ...

    def check_options(self, options: Mapping[str, Any]) -> list[Problem]:
        """Problems with the config's ``[options]`` table (fields relative to it). By
        default the format takes none: every option is unknown."""
        from dp_arena.tournament.config import Problem

        return [Problem(key, "unknown option; this format takes none") for key in options]

    def check_config(self, config: EventConfig) -> list[Problem]:
        """Problems that depend on several parts of a valid config at once (options that
        name entrants, say); ``config`` always has a key. None, unless a format says."""
        return []

    def plan(self, config: EventConfig) -> EventPlan: ...

    def play(self, config: EventConfig, plan: EventPlan, runtime: Runtime) -> EventResult: ...


def get_format(name: str) -> EventFormat:
    """The format called ``name``; ``KeyError`` names the known formats."""
    if name not in FORMATS:
        raise KeyError(f"unknown format {name!r}; known: {', '.join(FORMATS)}")
    module_name, attribute = FORMATS[name].split(":")
    event_format: EventFormat = getattr(importlib.import_module(module_name), attribute)
    return event_format


class NullObserver:
    """An observer that ignores everything."""

    def units_started(self, label: str, units: list[TableUnit]) -> None:
        return None

    def unit_finished(self, unit: TableUnit, result: TableSessionResult) -> None:
        return None

    def session_finished(self, outcome: SessionOutcome | RoundRobinOutcome) -> None:
        return None


@dataclass(frozen=True, slots=True)
class Runtime:
    """Where and how an event's table units run: the executor, who is told of progress,
    and the folder for the bots' logs (``None``: no logs kept)."""

    executor: Executor
    observer: RunObserver = field(default_factory=NullObserver)
    log_dir: str | None = None
