"""The sandbox: seats for untrusted bots, each in its own isolated process.

:func:`open_seat` is the one factory every command uses to seat an agent spec::

    seat = open_seat("bots/mine.py:MyBot", name="mine")        # sandboxed process
    seat = open_seat("tag", name="tag")                         # built-in: in-process
    seat = open_seat("node bots/bot.js", name="js", log_dir=run / "logs")
    seat = open_seat("registry:mybot@2", name="mybot")          # a submitted bot
    seat = open_seat("bots/mybot/", name="mybot")               # a bot folder (bot.toml)

Built-in bots, and Python specs when ``trusted=True``, run in-process
(:class:`~dp_arena.agents.InProcessSeat`; :func:`runs_in_process` is that rule).
Everything else runs in a process of its own, under the isolation :func:`isolation`
reports (``docs/sandbox.md``), speaking the JSON pipe protocol (``docs/protocol.md``).
Each call makes a separate process, so mirrored copies of a bot share nothing.
``open_seat`` never raises for a broken bot: the seat's first call answers with a
``LOAD_ERROR`` or ``LOAD_TIMEOUT`` fault, and it is then inactive.

The package has three wings (``docs/architecture.md`` draws them): ``dealer/``, the
seats as the table sees them; ``confinement/``, what a bot may see and do, one backend
class per isolation mode; ``bot/``, what runs inside the sandbox (the Python bot's
runner, the warm template its seats are forked from, the ACPC shim), which imports
nothing of the other two but the syscall filter. The pipe protocol and the limits,
which both sides use, sit at the top.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dp_arena.lazy import lazy_names

if TYPE_CHECKING:
    from dp_arena.sandbox.confinement.isolation import Isolation
    from dp_arena.sandbox.confinement.mounts import ForbiddenProgram
    from dp_arena.sandbox.dealer.process import ProcessSeat
    from dp_arena.sandbox.dealer.seats import (
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
        runs_in_process,
    )
    from dp_arena.sandbox.limits import Limits

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
    "runs_in_process",
]


def isolation() -> Isolation:
    """The isolation active on this machine (probed once per process)."""
    from dp_arena.sandbox.confinement.isolation import detect

    return detect()


# Where each public name lives. Nothing is imported until a name is used: the warm
# templates and the runner (the bot side, ``bot/``) live in this package and run in every
# seat, which needs none of the dealer's processes, threads and file-system code (and
# would copy its memory).
lazy_names(
    __name__,
    {
        "BotLaunch": "dealer.seats",
        "FailedSeat": "dealer.seats",
        "ForbiddenProgram": "confinement.mounts",
        "Isolation": "confinement.isolation",
        "Limits": "limits",
        "ProcessSeat": "dealer.process",
        "close_seats": "dealer.seats",
        "folder_problem": "dealer.seats",
        "is_acpc": "dealer.seats",
        "launch_for": "dealer.seats",
        "load_fault": "dealer.seats",
        "load_hint": "dealer.seats",
        "open_seat": "dealer.seats",
        "prepare": "dealer.seats",
        "resolve": "dealer.seats",
        "runs_in_process": "dealer.seats",
    },
    # The flat modules of the sandbox before its wings, each given as its new module;
    # isolation() stays the function when its old module is imported.
    keep=("isolation",),
    moved={
        **{old: f"dp_arena.sandbox.bot.{old}" for old in ("acpc", "acpc_shim", "runner", "zygote")},
        **{
            old: f"dp_arena.sandbox.confinement.{old}"
            for old in ("budget", "isolation", "mounts", "runtime", "seccomp", "uids")
        },
        **{
            old: f"dp_arena.sandbox.dealer.{old}"
            for old in ("conformance", "pipes", "process", "reaper", "seats", "spawn", "template")
        },
    },
)
