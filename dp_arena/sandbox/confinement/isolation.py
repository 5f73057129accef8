"""Which isolation the sandbox can use on this machine, and the command line that puts a
bot process inside it.

Three modes, best first (``DP_ARENA_SANDBOX=bubblewrap|unshare|none`` forces one), each a
backend class of its own (:mod:`~dp_arena.sandbox.confinement.backends`):

``bubblewrap``
    New network, PID, IPC, UTS and mount namespaces, a read-only root of the bot's
    runtime view and a private ``/tmp`` (:mod:`.backends.bubblewrap`).
``unshare``
    The fallback when ``bwrap`` is missing: the same namespaces and root, made by
    ``unshare`` and a small shell script (:mod:`.backends.unshare`).
``none``
    Neither works (no namespaces in this container): the bot is an ordinary process
    with resource limits and, as root, its own uid. A warning says the bot has network
    access and sees the host's files (:mod:`.backends.none`).

:func:`detect` asks each backend in turn whether it works here (its ``probe``) and takes
what the first that does guarantees (its ``describe``), with what every mode shares:
the budgets, the syscall filter, how Python bots' seats start, the runtime kept in
memory. :func:`sandbox_command` then has that backend ``wrap`` each bot's command.

In every mode the bot also runs under a syscall filter
(:mod:`~dp_arena.sandbox.confinement.seccomp`: no new namespaces, no mounts, ...) where
the machine's architecture is one the filter knows, and in the first two the host-wide
figures of ``/proc`` are masked (:func:`~dp_arena.sandbox.confinement.mounts.proc_masks`).

Run as root (the dealer usually is, in CI and on servers), every mode also drops the
bot to a uid of its own, never 0: root ignores file permissions and ``RLIMIT_NPROC``,
and a uid per bot process makes the process limit per bot and lets
:func:`~dp_arena.sandbox.confinement.processes.kill_uid` find every process a bot left
behind. The namespaces are deliberately made without a user namespace when running as
root: in one, the bot's uid would map back to root outside, and the kernel would exempt
it from the process limit.
"""

from __future__ import annotations

import functools
import os
import platform
import shutil
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from dp_arena.sandbox.confinement import seccomp
from dp_arena.sandbox.confinement.backends import MODES, backend
from dp_arena.sandbox.confinement.backends.base import (
    Enclosure,
    Isolation,
    is_root,
    world_reachable,
)
from dp_arena.sandbox.confinement.backends.none import NoneBackend
from dp_arena.sandbox.confinement.budget import budget_support
from dp_arena.sandbox.confinement.command import SandboxCommand, TemplatePlan, minimal_env
from dp_arena.sandbox.confinement.mounts import proc_masks, python_runtime
from dp_arena.sandbox.confinement.residency import hold
from dp_arena.sandbox.confinement.runtime import RuntimeView, python_view, system_view
from dp_arena.sandbox.confinement.uids import next_uid
from dp_arena.sandbox.limits import Limits

__all__ = [
    "MODES",
    "Isolation",
    "SandboxCommand",
    "TemplatePlan",
    "detect",
    "exec_command",
    "sandbox_command",
    "seat_start",
    "syscall_filter",
    "template_command",
    "template_plan",
]

# How a Python bot's seat process is made: forked from a warm template of its sandbox,
# or exec'd from nothing (``DP_ARENA_SEATS`` forces one).
SEAT_STARTS = ("fork", "exec")


@functools.cache
def detect() -> Isolation:
    """The best isolation that works here, found by starting a trivial sandboxed
    process once per dealer process (cached)."""
    support = budget_support()
    found = replace(_detect_namespaces(), budget=support.kind, budget_detail=support.describe())
    found = _with_filter(found)
    found = replace(found, seats=seat_start(found.mode))
    if found.private_filesystem:
        found = replace(found, residency=hold(python_view()).describe())
    if shutil.which("prlimit") is not None:
        return found
    missing = "prlimit (util-linux) is missing: no memory, CPU, process or file limits"
    warning = f"{found.warning}; {missing}" if found.warning else missing
    return replace(found, resource_limits=False, warning=warning)


def _with_filter(found: Isolation) -> Isolation:
    """``found`` with the syscall filter, if it knows this architecture and a sandboxed
    ``true`` runs under it here; otherwise without, saying why in a warning."""
    machine = platform.machine()
    filter_program = seccomp.program(machine)
    problem: str | None = f"it knows no system call numbers for {machine}"
    if filter_program is not None:
        problem = backend(found.mode).probe(filter_program)
        if problem is None:
            return replace(found, syscall_filter=True, filter_detail=f"seccomp, {machine}")
    warning = (
        f"no syscall filter ({problem}): a bot may make user namespaces and mount file"
        " systems inside its sandbox"
    )
    return replace(
        found,
        filter_detail=f"NO: {problem}",
        warning=f"{found.warning}; {warning}" if found.warning else warning,
    )


def seat_start(mode: str) -> str:
    """``fork`` where seats can be forked from a template here (a namespace mode, as
    root), else ``exec``; ``DP_ARENA_SEATS=exec`` forces the latter."""
    forced = os.environ.get("DP_ARENA_SEATS", "").strip().lower()
    if forced and forced not in SEAT_STARTS:
        raise ValueError(f"DP_ARENA_SEATS must be one of {', '.join(SEAT_STARTS)}, not {forced!r}")
    namespaces = backend(mode).namespaces
    if forced == "exec" or not namespaces or not is_root() or shutil.which("setpriv") is None:
        return "exec"
    return "fork"


def syscall_filter() -> bytes | None:
    """The filter every bot runs under here, or ``None`` when there is none."""
    return seccomp.program() if detect().syscall_filter else None


def _detect_namespaces() -> Isolation:
    """What the best mode that works here guarantees (or the forced one's)."""
    forced = os.environ.get("DP_ARENA_SANDBOX", "").strip().lower()
    if forced and forced not in MODES:
        raise ValueError(f"DP_ARENA_SANDBOX must be one of {', '.join(MODES)}, not {forced!r}")
    candidates = [forced] if forced else list(MODES)
    refused = []
    for mode in candidates:
        if mode == "none":
            break
        problem = backend(mode).probe()
        if problem is None:
            return backend(mode).describe()
        refused.append(f"{mode}: {problem}")
    return NoneBackend().describe(refused)


def sandbox_command(
    argv: Sequence[str],
    *,
    bot_dir: Path,
    runtime: RuntimeView,
    limits: Limits,
    own: Path | None = None,
    runner_args: Sequence[str] | None = None,
) -> SandboxCommand:
    """The command that runs ``argv`` in the sandbox detected here, in the working
    directory ``bot_dir``, with the bot's ``own`` files (a file or a folder; by default
    ``bot_dir``: each seat reads a private copy) and ``runtime`` (with the system's view)
    visible read-only, every page of which this dealer keeps in memory from now on.
    ``runner_args``: for a Python bot, the arguments of its runner (its seat may then be
    forked from a template)."""
    active = detect()
    mode = active.mode
    bot_dir = bot_dir.resolve()
    own = own.resolve() if own is not None else bot_dir
    uid = None
    # Without a private filesystem the bot's own uid must reach the runtime through the
    # host's permissions; when it cannot (Python installed under /root), the bot keeps
    # the dealer's uid rather than fail to start.
    filter_program = syscall_filter()
    if active.private_filesystem:
        hold(system_view() | runtime, own)
    shown = [Path(path) for path in (*runtime.trees, *runtime.files)]
    needed = [*shown, own, *(python_runtime() if filter_program else ())]
    reachable = backend(mode).namespaces or all(world_reachable(path) for path in needed)
    if is_root() and _setpriv() and reachable:
        uid = next_uid()
    plan = template_plan(runner_args, bot_dir=bot_dir, runtime=runtime, limits=limits, own=own)
    if plan is not None and uid is not None:
        # Forked from a template: the command is the runner's own, and is wrapped in a
        # sandbox of its own (exec_command) only if no template can make the seat.
        return SandboxCommand(tuple(argv), minimal_env(), str(bot_dir), uid, template=plan)
    enclosure = Enclosure(bot_dir, own, runtime, limits, uid, filter_program)
    return backend(mode).wrap(argv, enclosure)


def template_plan(
    runner_args: Sequence[str] | None,
    *,
    bot_dir: Path,
    runtime: RuntimeView,
    limits: Limits,
    own: Path | None = None,
) -> TemplatePlan | None:
    """The template a Python bot's seats are forked from here, or ``None`` when its
    seats are exec'd (see :func:`seat_start`)."""
    active = detect()
    if runner_args is None or active.seats != "fork":
        return None
    bot_dir = bot_dir.resolve()
    return TemplatePlan(
        active.mode,
        tuple(runner_args),
        bot_dir,
        own.resolve() if own is not None else bot_dir,
        runtime,
        limits.memory_bytes,
        syscall_filter(),
    )


def exec_command(command: SandboxCommand, limits: Limits) -> SandboxCommand:
    """A forked seat's command, wrapped to be exec'd in a sandbox of its own instead."""
    plan = command.template
    if plan is None:
        return command
    enclosure = Enclosure(
        plan.bot_dir, plan.own, plan.runtime, limits, command.uid, plan.filter_program
    )
    return backend(plan.mode).wrap(command.argv, enclosure)


@functools.cache
def _setpriv() -> str | None:
    return shutil.which("setpriv")


def template_command(plan: TemplatePlan) -> SandboxCommand:
    """The command that starts a template of ``plan``'s sandbox
    (:mod:`dp_arena.sandbox.bot.zygote`): the bot's own sandbox, as root with the
    capabilities a seat's set-up needs, without limits, uid or filter (each seat sets
    its own)."""
    masks = ",".join(target.removeprefix("/proc/") for _, target in proc_masks(plan.memory_bytes))
    argv = [sys.executable, "-I", "-m", "dp_arena.sandbox.bot.zygote", "--masks", masks]
    argv += ["--own", str(plan.own)]
    if plan.filter_program is not None:
        argv += ["--filter", plan.filter_program.hex()]
    # Each seat's fresh /tmp would hide what the runtime shows under /tmp: shown again.
    view = system_view() | plan.runtime
    for path in [*view.trees, *view.files]:
        if _within(path, "/tmp"):
            argv += ["--under-tmp", path]
    for path, target in view.links:
        if _within(path, "/tmp"):
            argv += ["--under-tmp-link", f"{path}={target}"]
    limits = Limits(memory_bytes=plan.memory_bytes)
    enclosure = Enclosure(plan.bot_dir, plan.own, plan.runtime, limits, None, template=True)
    return backend(plan.mode).wrap([*argv, "--", *plan.runner_args], enclosure)


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
