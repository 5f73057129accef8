"""Events: configs, plans and the duplicate tournament formats, run as table units.

::

    config (TOML)  ->  plan (pure: sessions, sections, tables, deals, prizes)
                   ->  play: each session is a list of TableUnit (plain data)
                       run by an Executor (SerialExecutor here, Ray later)
                   ->  EventResult (records)  ->  run directory (results.json, PHH, logs)

Each family of formats is a subpackage (``regular``, ``short``, ``quickplay``, ``cash``,
``classic``) implementing :class:`~dp_arena.tournament.interface.EventFormat` over the
machinery shared at this package's top; formats are registered by name in
:data:`~dp_arena.tournament.formats.FORMATS`, the one place the rest reaches them from
(docs/architecture.md).
"""

from __future__ import annotations

from dp_arena.tournament.config import Entrant, EventConfig
from dp_arena.tournament.event import EventRun, run_event
from dp_arena.tournament.formats import FORMATS, get_format
from dp_arena.tournament.interface import EventFormat, RunObserver, Runtime
from dp_arena.tournament.loading import default_config, load_config, parse_config
from dp_arena.tournament.outcomes import EventResult, Standing
from dp_arena.tournament.plan import EventPlan
from dp_arena.units import Executor, SeatAssignment, SerialExecutor, TableUnit, run_unit

__all__ = [
    "FORMATS",
    "Entrant",
    "EventConfig",
    "EventFormat",
    "EventPlan",
    "EventResult",
    "EventRun",
    "Executor",
    "RunObserver",
    "Runtime",
    "SeatAssignment",
    "SerialExecutor",
    "Standing",
    "TableUnit",
    "default_config",
    "get_format",
    "load_config",
    "parse_config",
    "run_event",
    "run_unit",
]
