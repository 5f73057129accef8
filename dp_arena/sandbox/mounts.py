"""What a sandboxed bot may see of the host's file system: the system folders, the
Python that runs dp-arena, its own files and nothing else.

- **System folders** (``/usr``, ``/bin``, ``/sbin``, ``/lib*``, ``/etc``), read-only.
- **The Python runtime** of the dealer (its install, its virtual environment and the
  ``dp_arena`` package), read-only, for Python bots and for command bots that run it.
- **The bot's own files**, read-only: a ``file.py:Class`` bot sees its own file and
  nothing else of its folder, unless the folder is a bot folder (it holds a
  ``bot.toml`` manifest, as every submitted bot's folder does) or the repository's
  public ``agents/`` folder; a registry bot, or a command bot, sees its folder.

A command bot's program must lie in those places: in a system folder (found through the
sandbox's own ``PATH``, never the dealer's), in the dealer's Python runtime, or in the
bot's own folder. Anything else is refused with :class:`ForbiddenProgram`, at submission
and when the seat opens: mounting a program's install would show the bot a host folder.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import dp_arena
from dp_arena.errors import AgentError

__all__ = [
    "PROGRAM_DIRS",
    "SANDBOX_PATH",
    "SYSTEM_DIRS",
    "ForbiddenProgram",
    "check_command",
    "own_files",
    "program_runtime",
    "python_runtime",
    "system_entries",
    "visible_paths",
]

SYSTEM_DIRS = ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin", "/etc")
# Where a command bot's program may live among the system folders (/etc holds no programs).
PROGRAM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32")
# The PATH inside the sandbox: a bare program name is looked up here, not in the dealer's.
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
BOT_MANIFEST = "bot.toml"


class ForbiddenProgram(AgentError):
    """A command bot names a program the sandbox may not show it."""


def python_runtime() -> tuple[Path, ...]:
    """What a Python bot needs to see: the interpreter's install, the virtual
    environment (third-party packages) and the dp_arena package itself."""
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


def program_runtime(program: str, bot_dir: Path) -> tuple[Path, ...]:
    """The folders a command bot's ``program`` needs mounted besides its own folder
    (the Python runtime when it runs the dealer's Python, else none); raises
    :class:`ForbiddenProgram` for a program outside the system folders, the Python
    runtime and ``bot_dir``, or one that does not exist."""
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
        return python
    return ()


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


def visible_paths(own: Path, runtime: Sequence[Path]) -> list[Path]:
    """The host paths mounted read-only for a bot, outermost first, none inside another."""
    paths: list[Path] = []
    for path in [*runtime, own]:
        if path.exists() and not any(path == kept or path.is_relative_to(kept) for kept in paths):
            paths = [kept for kept in paths if not kept.is_relative_to(path)] + [path]
    return sorted(paths, key=lambda path: len(path.parts))


def system_entries() -> list[tuple[str, str]]:
    """``(folder, link target)`` or ``(folder, "")`` for each system folder present here."""
    entries = []
    for system in SYSTEM_DIRS:
        if os.path.islink(system):
            entries.append((system, os.readlink(system)))
        elif os.path.isdir(system):
            entries.append((system, ""))
    return entries
