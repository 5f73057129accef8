"""The sandbox: seats for untrusted bots, each in its own isolated process.

:func:`open_seat` is the one factory every command uses to seat an agent spec::

    seat = open_seat("bots/mine.py:MyBot", name="mine")        # sandboxed process
    seat = open_seat("tag", name="tag")                         # built-in: in-process
    seat = open_seat("node bots/bot.js", name="js", log_dir=run / "logs")
    seat = open_seat("registry:mybot@2", name="mybot")          # a submitted bot

Built-in bots, and Python specs when ``trusted=True``, run in-process
(:class:`~dp_arena.agents.InProcessSeat`). Everything else runs in a fresh process
started by exec, under the isolation :func:`isolation` reports (``docs/sandbox.md``),
speaking the JSON pipe protocol (``docs/protocol.md``). Python classes are hosted by
:mod:`dp_arena.sandbox.runner`. Each call makes a separate process, so mirrored copies
of a bot share nothing. ``open_seat`` never raises for a broken bot: the seat's first
call answers with a ``LOAD_ERROR`` or ``LOAD_TIMEOUT`` fault, and it is then inactive.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dp_arena.sandbox.isolation import Isolation
    from dp_arena.sandbox.limits import Limits
    from dp_arena.sandbox.mounts import ForbiddenProgram
    from dp_arena.sandbox.process import ProcessSeat
    from dp_arena.sandbox.seats import (
        BotLaunch,
        FailedSeat,
        close_seats,
        launch_for,
        load_fault,
        open_seat,
        prepare,
    )

__all__ = [
    "BotLaunch",
    "FailedSeat",
    "ForbiddenProgram",
    "Isolation",
    "Limits",
    "ProcessSeat",
    "close_seats",
    "isolation",
    "launch_for",
    "load_fault",
    "open_seat",
    "prepare",
]

# Where each public name lives. Nothing is imported until a name is used: the warm
# templates and the runner live in this package and run in every seat, which needs none
# of the dealer's processes, threads and file-system code (and would copy its memory).
_HOMES = {
    "BotLaunch": "seats",
    "FailedSeat": "seats",
    "ForbiddenProgram": "mounts",
    "Isolation": "isolation",
    "Limits": "limits",
    "ProcessSeat": "process",
    "close_seats": "seats",
    "launch_for": "seats",
    "load_fault": "seats",
    "open_seat": "seats",
    "prepare": "seats",
}


def isolation() -> Isolation:
    """The isolation active on this machine (probed once per process)."""
    from dp_arena.sandbox.isolation import detect

    return detect()


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


class _Package(types.ModuleType):
    """This package, whose name ``isolation`` stays the function above: importing the
    submodule of the same name would otherwise bind the name to the module."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "isolation" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
