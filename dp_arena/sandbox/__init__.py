"""The sandbox: seats for untrusted bots, each in its own isolated process.

:func:`open_seat` is the one factory every command uses to seat an agent spec::

    seat = open_seat("bots/mine.py:MyBot", name="mine")        # sandboxed process
    seat = open_seat("tag", name="tag")                         # built-in: in-process
    seat = open_seat("node bots/bot.js", name="js", log_dir=run / "logs")
    seat = open_seat("registry:mybot@2", name="mybot")          # a submitted bot
    seat = open_seat("bots/mybot/", name="mybot")               # a bot folder (bot.toml)

Built-in bots, and Python specs when ``trusted=True``, run in-process
(:class:`~dp_arena.agents.InProcessSeat`). Everything else runs in a fresh process
started by exec, under the isolation :func:`isolation` reports (``docs/sandbox.md``),
speaking the JSON pipe protocol (``docs/protocol.md``). Python classes are hosted by
:mod:`dp_arena.sandbox.runner`. Each call makes a separate process, so mirrored copies
of a bot share nothing. ``open_seat`` never raises for a broken bot: the seat's first
call answers with a ``LOAD_ERROR`` or ``LOAD_TIMEOUT`` fault, and it is then inactive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dp_arena.lazy import lazy_names

if TYPE_CHECKING:
    from dp_arena.sandbox.isolation import Isolation
    from dp_arena.sandbox.limits import Limits
    from dp_arena.sandbox.mounts import ForbiddenProgram
    from dp_arena.sandbox.process import ProcessSeat
    from dp_arena.sandbox.seats import (
        BotLaunch,
        FailedSeat,
        close_seats,
        folder_problem,
        is_acpc,
        launch_for,
        load_fault,
        load_hint,
        open_seat,
        prepare,
        resolve,
    )

__all__ = [
    "BotLaunch",
    "FailedSeat",
    "ForbiddenProgram",
    "Isolation",
    "Limits",
    "ProcessSeat",
    "close_seats",
    "folder_problem",
    "is_acpc",
    "isolation",
    "launch_for",
    "load_fault",
    "load_hint",
    "open_seat",
    "prepare",
    "resolve",
]


def isolation() -> Isolation:
    """The isolation active on this machine (probed once per process)."""
    from dp_arena.sandbox.isolation import detect

    return detect()


# Where each public name lives. Nothing is imported until a name is used: the warm
# templates and the runner live in this package and run in every seat, which needs none
# of the dealer's processes, threads and file-system code (and would copy its memory).
lazy_names(
    __name__,
    {
        "BotLaunch": "seats",
        "FailedSeat": "seats",
        "ForbiddenProgram": "mounts",
        "Isolation": "isolation",
        "Limits": "limits",
        "ProcessSeat": "process",
        "close_seats": "seats",
        "folder_problem": "seats",
        "is_acpc": "seats",
        "launch_for": "seats",
        "load_fault": "seats",
        "load_hint": "seats",
        "open_seat": "seats",
        "prepare": "seats",
        "resolve": "seats",
    },
    keep=("isolation",),  # the function above, not the submodule of that name
)
