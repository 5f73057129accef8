"""What a sandboxed bot may see of the host's file system: the runtime its language
needs, its own files and nothing else.

- **The runtime**, read-only: the system's configuration, the C library and the tools
  that start a bot, and the files of its language (for a Python bot, the Python that
  runs dp-arena with its standard library, NumPy and dp-arena), every page of them kept
  in memory by the dealer (:mod:`dp_arena.sandbox.confinement.runtime`).
- **The bot's own files**, read-only and a **private copy for each seat**
  (:func:`private_copy`; a forked seat's is made by its own init): a ``file.py:Class``
  bot sees its own file and nothing else of its folder, unless the folder is a bot
  folder (it holds a ``bot.toml`` manifest, as every submitted bot's folder does) or the
  repository's public ``agents/`` folder; a registry bot, or a command bot, sees its
  folder. Its mirrored copies each read their own copy, so what one does to its files'
  cached pages cannot reach another.

Host-wide figures in ``/proc`` (memory, load, CPU and interrupt counters, pressure,
open-file counts, ...) would let two sandboxes signal each other through the host's
load, so :func:`proc_masks` lays constant stand-ins over them: the bot reads its memory
budget as the machine's memory, zeros for the counters.

A command bot's program must lie in those places: in a system folder (found through the
sandbox's own ``PATH``, never the dealer's; the bot then sees the program, the libraries
it loads and its language's library folders), in the dealer's Python runtime, or in the
bot's own folder. Anything else is refused with :class:`ForbiddenProgram`, at submission
and when the seat opens: mounting a program's install would show the bot a host folder.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import re
import shlex
import shutil
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

import dp_arena
from dp_arena.errors import AgentError
from dp_arena.names import MANIFEST
from dp_arena.sandbox.confinement.runtime import (
    SANDBOX_PATH,
    RuntimeView,
    program_view,
    python_view,
)

__all__ = [
    "PROGRAM_DIRS",
    "SANDBOX_PATH",
    "SYSTEM_DIRS",
    "ForbiddenProgram",
    "check_command",
    "host_file",
    "host_folder",
    "own_files",
    "pid_alive",
    "private_copy",
    "proc_masks",
    "program_runtime",
    "python_runtime",
]

SYSTEM_DIRS = ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin", "/etc")
# Where a command bot's program may live among the system folders (/etc holds no programs).
PROGRAM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32")
BOT_MANIFEST = MANIFEST


class ForbiddenProgram(AgentError):
    """A command bot names a program the sandbox may not show it."""


@functools.cache
def python_runtime() -> tuple[Path, ...]:
    """The folders the Python that runs dp-arena lies in: the interpreter's install, the
    virtual environment and the dp_arena package (what a bot without a private file
    system must reach through the host's permissions; a sandboxed bot sees only
    :func:`~dp_arena.sandbox.confinement.runtime.python_view` of them)."""
    paths = {
        Path(sys.base_prefix).resolve(),
        Path(sys.prefix).resolve(),
        Path(dp_arena.__file__).resolve().parent,
    }
    return tuple(sorted(paths))


def own_files(bot_file: Path) -> Path:
    """What a ``file.py:Class`` bot sees of the host: its own file, or its whole folder
    when that is a bot folder (a ``bot.toml`` beside it) or the public built-in bots'."""
    from dp_arena.agents.spec import AGENTS_DIR

    folder = bot_file.parent
    if (folder / BOT_MANIFEST).is_file() or folder == AGENTS_DIR.resolve():
        return folder
    return bot_file


def _within(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def program_runtime(program: str, bot_dir: Path) -> RuntimeView:
    """What a command bot's ``program`` needs to see besides its own folder and the
    system's view: a system program and what it loads (with its language's folders), or
    the Python view when it runs the dealer's Python; nothing more for a program of its
    own. Raises :class:`ForbiddenProgram` for a program outside the system folders, the
    Python runtime and ``bot_dir``, or one that does not exist."""
    bot_dir = bot_dir.resolve()
    python = python_runtime()
    allowed = [Path(folder) for folder in PROGRAM_DIRS] + list(python) + [bot_dir]
    what_is_allowed = (
        "a command bot may run a program from the system folders ("
        + ", ".join(PROGRAM_DIRS)
        + f"; a bare name is looked up in {SANDBOX_PATH}), the Python that runs dp-arena"
        f" ({sys.executable}) or a program in its own folder ({bot_dir})"
    )
    if "/" in program:
        given = Path(os.path.abspath(bot_dir / program))  # absolute stays absolute
    else:
        found = shutil.which(program, path=SANDBOX_PATH)
        if found is None:
            raise ForbiddenProgram(f"program {program!r} is not found: {what_is_allowed}")
        given = Path(os.path.abspath(found))
    if not given.is_file():
        raise ForbiddenProgram(f"program {program!r} ({given}) is not a file: {what_is_allowed}")
    real = given.resolve()
    for path in dict.fromkeys((given, real)):  # the name as written and what it links to
        if not _within(path, allowed):
            raise ForbiddenProgram(
                f"program {program!r} ({path}) is outside what the sandbox may show a bot:"
                f" {what_is_allowed}"
            )
    if _within(real, python) or _within(given, python):
        return python_view()
    if _within(real, [bot_dir]) or _within(given, [bot_dir]):
        return RuntimeView()
    return program_view(str(given))


def check_command(command: str, bot_dir: Path) -> None:
    """Refuse (:class:`ForbiddenProgram`) a command line, run in ``bot_dir``, whose
    program the sandbox may not show; :class:`AgentError` if it is no command line."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise AgentError(f"command {command!r} is not a valid command line: {error}") from None
    if not argv:
        raise AgentError(f"command {command!r} names no program")
    program_runtime(argv[0], bot_dir)


def private_copy(own: Path, into: Path) -> Path:
    """A copy of a bot's ``own`` files (a file or a folder) in the new folder ``into``,
    for one seat alone: folders 0755, files 0444 (0555 if executable), owned by the
    dealer; symbolic links as links; anything else (a pipe, a device) left out. Returns
    the copy of ``own``."""
    into.mkdir(mode=0o755)
    os.chmod(into, 0o755)
    target = into / own.name
    if own.is_dir() and not own.is_symlink():
        _copy_folder(own, target)
    else:
        _copy_file(own, target)
    return target


def _copy_folder(source: Path, target: Path) -> None:
    target.mkdir(mode=0o755)
    os.chmod(target, 0o755)
    with os.scandir(source) as entries:
        for entry in entries:
            if entry.is_symlink():
                os.symlink(os.readlink(entry.path), target / entry.name)
            elif entry.is_dir():
                _copy_folder(Path(entry.path), target / entry.name)
            elif entry.is_file():
                _copy_file(Path(entry.path), target / entry.name)


def _copy_file(source: Path, target: Path) -> None:
    mode = os.stat(source).st_mode
    shutil.copyfile(source, target)
    os.chmod(target, 0o555 if mode & 0o111 else 0o444)


# -- host-wide /proc figures, masked -------------------------------------------------------

_ZERO_PRESSURE = (
    "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
    "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
)
# /proc files (relative to /proc) showing the whole host's activity, and what a bot reads
# instead; those that are missing here are left alone (a bind needs its target).
_CONSTANT_PROC = {
    "loadavg": "0.00 0.00 0.00 1/1 1\n",
    "uptime": "0.00 0.00\n",
    "vmstat": "",
    "diskstats": "",
    "interrupts": "",
    "softirqs": "",
    "schedstat": "",
    "zoneinfo": "",
    "buddyinfo": "",
    "locks": "",
    "key-users": "",
    "cgroups": "",
    "swaps": "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n",
    "pressure/cpu": _ZERO_PRESSURE,
    "pressure/io": _ZERO_PRESSURE,
    "pressure/memory": _ZERO_PRESSURE,
    "pressure/irq": _ZERO_PRESSURE,
    "sys/fs/file-nr": "0\t0\t0\n",
    "sys/fs/inode-nr": "0\t0\n",
    "sys/fs/inode-state": "0\t0\t0\t0\t0\t0\t0\n",
    "sys/fs/dentry-state": "0\t0\t0\t0\t0\t0\n",
    "sys/fs/aio-nr": "0\n",
    "sys/kernel/pty/nr": "0\n",
}


def _meminfo(memory_bytes: int) -> str:
    kib = memory_bytes // 1024
    fields = [("MemTotal", kib), ("MemFree", kib), ("MemAvailable", kib)]
    fields += [(name, 0) for name in ("Buffers", "Cached", "SwapCached", "Active", "Inactive")]
    fields += [("SwapTotal", 0), ("SwapFree", 0), ("Shmem", 0)]
    return "".join(f"{name + ':':<16}{value:>8} kB\n" for name, value in fields)


def _stat() -> str:
    zeros = " ".join(["0"] * 10)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    lines = [f"cpu  {zeros}"] + [f"cpu{index} {zeros}" for index in range(cpus)]
    lines += ["intr 0", "ctxt 0", "btime 0", "processes 0", "procs_running 1"]
    lines += ["procs_blocked 0", "softirq 0"]
    return "\n".join(lines) + "\n"


def _cpuinfo() -> str:
    """The host's CPU description (static, and what libraries probe) without the
    current clock speed, which moves with the host's load."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            text = cpuinfo.read()
    except OSError:
        return ""
    return re.sub(r"(?m)^(cpu MHz\s*:).*$", r"\1 0.000", text)


# Seats are opened from several threads at once (a run's preflight, spare seats): the
# dealer's folder and the files in it are made under one lock.
_host_lock = threading.RLock()


def host_folder() -> Path:
    """This dealer's folder of files it shows bots read-only (see :func:`_host_folder`)."""
    with _host_lock:
        return _host_folder()


@functools.cache
def _host_folder() -> Path:
    """This dealer's folder of files it shows bots read-only (the ``/proc`` stand-ins,
    the syscall filter); removed at exit, and those of dealers that died are removed
    when the next one makes its own."""
    parent = Path(tempfile.gettempdir())
    for stale in parent.glob("dp-arena-proc-*-*"):
        owner = stale.name.split("-")[3]
        with contextlib.suppress(OSError):
            if (
                owner.isdigit()
                and not pid_alive(int(owner))
                and stale.stat().st_uid == os.geteuid()
            ):
                shutil.rmtree(stale, ignore_errors=True)
    folder = Path(tempfile.mkdtemp(prefix=f"dp-arena-proc-{os.getpid()}-", dir=parent))
    os.chmod(folder, 0o755)
    atexit.register(shutil.rmtree, folder, True)
    return folder


def host_file(name: str, data: bytes) -> str:
    """A read-only file ``name`` holding ``data`` in :func:`host_folder` (written once;
    seats opened from several threads at once write it once between them)."""
    path = host_folder() / name
    with _host_lock:
        if not path.exists() or path.read_bytes() != data:
            handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{name}.")
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            os.chmod(partial, 0o444)
            os.replace(partial, path)
    return str(path)


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (it may be another user's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def proc_masks(memory_bytes: int) -> tuple[tuple[str, str], ...]:
    """``(host file, /proc path)`` pairs to bind read-only over the sandbox's ``/proc``
    (made once per dealer process and memory budget, whatever threads ask at once)."""
    with _host_lock:
        return _proc_masks(memory_bytes)


@functools.cache
def _proc_masks(memory_bytes: int) -> tuple[tuple[str, str], ...]:
    contents = {**_CONSTANT_PROC, "meminfo": _meminfo(memory_bytes), "stat": _stat()}
    contents["cpuinfo"] = _cpuinfo()
    folder = host_folder() / str(memory_bytes)
    folder.mkdir(mode=0o755, exist_ok=True)
    masks = []
    for name, text in sorted(contents.items()):
        target = f"/proc/{name}"
        if not os.path.isfile(target):
            continue
        source = folder / name.replace("/", "_")
        source.write_text(text, encoding="utf-8")
        os.chmod(source, 0o444)
        masks.append((str(source), target))
    return tuple(masks)
