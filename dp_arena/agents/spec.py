"""Agent specs: the strings that name a bot, and loading Python bots in-process.

A spec is one of:

- a built-in name: ``random``, ``calling-station``, ``aggressive``, ``tag``, ``equity``,
  ``learned`` (the bots of :data:`AGENTS_DIR`: the repository's ``agents/`` folder, which
  an installed dp-arena carries as ``dp_arena/builtin_bots``);
- ``path/to/file.py:ClassName``: a class in a Python file; the file's folder is put on
  ``sys.path`` first, so a bot may be several modules (sandboxed, only when the folder
  is a bot folder with a ``bot.toml``: otherwise the bot sees its own file alone);
- ``package.module:ClassName``: a class in an importable module;
- ``registry:NAME[@VERSION]``: a bot submitted to the bot registry (:mod:`dp_arena.registry`);
- ``path/to/folder/`` (or its ``bot.toml``, or a bare name of a folder that exists): a bot
  folder, as ``dp-arena submit`` takes it, whose ``bot.toml`` says what to run (a class, a
  command or an ACPC agent; the sandbox resolves it, :mod:`dp_arena.registry`);
- ``acpc:COMMAND``: an ACPC agent, a program speaking the ACPC dealer protocol, started by
  dp-arena's shim with ``{game}``, ``{host}`` and ``{port}`` in its command line filled in
  (``docs/protocol.md``);
- anything else is a command line (``node bot.js``, ``./mybot --fast``) for an external
  program speaking the pipe protocol of ``docs/protocol.md``; ``cmd:`` forces this
  reading (``cmd:bot.py:Main`` runs a program called ``bot.py:Main``). A lone
  ``file.py`` is refused rather than run: it names a Python file but no class (an
  executable ``./file.py`` runs as a program; :func:`python_classes` finds classes to
  suggest).

Whether a bot runs in-process (trusted) or sandboxed is decided by whoever seats it,
not by the spec: see :mod:`dp_arena.sandbox`.
"""

from __future__ import annotations

import difflib
import enum
import functools
import importlib
import importlib.machinery
import importlib.util
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dp_arena.agents.agent import Agent
from dp_arena.agents.bot_file import (
    MAX_LOCAL_IMPORTS,
    class_problem,
    import_file,
    local_imports,
    missing_file,
    module_problem,
    precompile,
    project_imports,
    python_classes,
)
from dp_arena.errors import AgentError
from dp_arena.names import ACPC_PREFIX, COMMAND_PREFIX, MANIFEST, REGISTRY_PREFIX

# A Python bot file read from its syntax and imported lives in dp_arena.agents.bot_file;
# its names are given here too, as before.
__all__ = [
    "AGENTS_DIR",
    "BUILTINS",
    "MAX_LOCAL_IMPORTS",
    "AgentSpec",
    "SpecKind",
    "class_problem",
    "load_agent",
    "local_imports",
    "missing_file",
    "module_problem",
    "parse_spec",
    "precompile",
    "project_imports",
    "python_classes",
]


def _builtin_folder() -> Path:
    """The built-in bots' folder: ``builtin_bots`` inside an installed package (a wheel
    carries the repository's ``agents/`` there), else ``agents/`` beside the package (a
    clone, or an editable install of one)."""
    package = Path(__file__).resolve().parents[1]
    installed = package / "builtin_bots"
    return installed if installed.is_dir() else package.parent / "agents"


AGENTS_DIR = _builtin_folder()

BUILTINS: dict[str, str] = {
    "random": "random_bot.py:RandomBot",
    "calling-station": "calling_station.py:CallingStation",
    "aggressive": "aggressive.py:AggressiveBot",
    "tag": "tag.py:TightAggressiveBot",
    "equity": "equity.py:EquityBot",
    "learned": "learned.py:LearnedBot",
}

# The manifest that makes a folder a bot folder (dp_arena.registry reads it).
BOT_MANIFEST = MANIFEST

_FILE_SPEC = re.compile(r"^(?P<path>[^\s:]+\.py):(?P<name>[A-Za-z_]\w*)$")
_MODULE_SPEC = re.compile(r"^(?P<module>[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*):(?P<name>[A-Za-z_]\w*)$")


class SpecKind(enum.StrEnum):
    BUILTIN = "builtin"
    FILE = "file"
    MODULE = "module"
    REGISTRY = "registry"
    FOLDER = "folder"
    COMMAND = "command"
    ACPC = "acpc"


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """A parsed spec. ``target`` is a file path, a module name, a bot folder's path, a
    registry reference, or the command's argv."""

    text: str
    kind: SpecKind
    target: str | tuple[str, ...]
    class_name: str | None = None

    @property
    def is_python(self) -> bool:
        """A Python class this process can name (a registry bot is resolved first)."""
        return self.kind in (SpecKind.BUILTIN, SpecKind.FILE, SpecKind.MODULE)

    @property
    def name(self) -> str:
        """A short display name: the built-in name, the class name or the program."""
        if self.kind is SpecKind.BUILTIN:
            return self.text
        if self.kind is SpecKind.REGISTRY:
            return str(self.target).partition("@")[0]
        if self.kind is SpecKind.FOLDER:
            return os.path.basename(os.path.abspath(os.path.expanduser(str(self.target))))
        if self.class_name:
            return self.class_name
        return Path(self.target[0]).name if isinstance(self.target, tuple) else str(self.target)


@functools.cache
def _builtin_spec(name: str) -> AgentSpec:
    """A built-in's spec, made once: every table-session seats its built-ins anew."""
    path, class_name = BUILTINS[name].split(":")
    return AgentSpec(name, SpecKind.BUILTIN, str(AGENTS_DIR / path), class_name)


def parse_spec(text: str) -> AgentSpec:
    """Parse an agent spec; ``AgentError`` explains what is wrong with it."""
    if not isinstance(text, str) or not text.strip():
        raise AgentError(f"an agent spec must be a non-empty string, not {text!r}")
    text = text.strip()
    if text.startswith(COMMAND_PREFIX):
        argv = _split_command(text.removeprefix(COMMAND_PREFIX), text)
        return AgentSpec(text, SpecKind.COMMAND, argv)
    if text.startswith(ACPC_PREFIX):
        argv = _split_command(text.removeprefix(ACPC_PREFIX), text)
        return AgentSpec(text, SpecKind.ACPC, argv)
    if text in BUILTINS:
        return _builtin_spec(text)
    if text.startswith(REGISTRY_PREFIX):
        # ``registry:[ROOT#]name[@version]``: the target is the reference, root left out.
        reference = text.removeprefix(REGISTRY_PREFIX).rpartition("#")[2]
        if not reference or reference.startswith("@"):
            raise AgentError(f"agent spec {text!r} names no bot: write registry:NAME[@VERSION]")
        return AgentSpec(text, SpecKind.REGISTRY, reference)
    folder = _bot_folder(text)
    if folder is not None:
        return AgentSpec(text, SpecKind.FOLDER, folder)
    match = _FILE_SPEC.match(text)
    if match:
        return AgentSpec(text, SpecKind.FILE, match["path"], match["name"])
    match = _MODULE_SPEC.match(text)
    if match:
        return AgentSpec(text, SpecKind.MODULE, match["module"], match["name"])
    argv = _split_command(text, text)
    # ``bot.py`` alone is a forgotten ``:Class``; an executable ``./bot.py`` is a program.
    if len(argv) == 1 and argv[0].endswith(".py") and not _executable_path(argv[0]):
        try:
            acting = python_classes(Path(argv[0]))[1]
        except (AgentError, OSError, SyntaxError, ValueError):
            acting = []
        meant = " or ".join(f"{argv[0]}:{name}" for name in acting[:3])
        raise AgentError(
            f"agent spec {text!r} names a Python file but no class"
            + (f"; did you mean {meant}?" if meant else "")
            + f" Write {argv[0]}:ClassName for a class with an act method, or"
            f" 'python3 {argv[0]}' (or cmd:{argv[0]}) to run it as a program over the pipe"
            " protocol"
        )
    return AgentSpec(text, SpecKind.COMMAND, argv)


def _bot_folder(text: str) -> str | None:
    """The folder a spec names as a bot folder: written with a final ``/`` (``mybot/``),
    as its manifest (``mybot/bot.toml``), or as the bare name of a folder that exists (a
    folder cannot be run as a program); ``None`` otherwise."""
    if text.endswith("/"):
        return text.rstrip("/") or "/"
    if text == BOT_MANIFEST or text.endswith("/" + BOT_MANIFEST):
        return str(Path(text).parent)
    if not any(character.isspace() for character in text) and Path(text).expanduser().is_dir():
        return text
    return None


def _executable_path(program: str) -> bool:
    return "/" in program and os.access(program, os.X_OK) and Path(program).is_file()


def _split_command(command: str, text: str) -> tuple[str, ...]:
    try:
        argv = tuple(shlex.split(command))
    except ValueError as error:
        raise AgentError(f"agent spec {text!r} is not a valid command line: {error}") from None
    if not argv:
        raise AgentError(f"agent spec {text!r} names no command")
    return argv


def load_agent(spec: AgentSpec | str, **kwargs: Any) -> Agent:
    """Import a Python bot's class and instantiate it (``kwargs`` go to its constructor)."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    if spec.kind in (SpecKind.FOLDER, SpecKind.REGISTRY):
        raise AgentError(
            f"{spec.text!r} is a bot folder: its bot.toml says what to run, which a seat"
            " finds (dp_arena.sandbox.open_seat)"
        )
    if not spec.is_python or spec.class_name is None:
        raise AgentError(
            f"{spec.text!r} is an external program, not a Python class; run it in a seat"
        )
    if spec.kind is SpecKind.MODULE:
        try:
            module = importlib.import_module(str(spec.target))
        except Exception as error:
            raise AgentError(
                f"agent {spec.text!r}: cannot import {spec.target}: {error}"
            ) from error
    else:
        module = import_file(str(spec.target), spec.text)
    cls = getattr(module, spec.class_name, None)
    if cls is None:
        raise AgentError(
            f"agent {spec.text!r}: {spec.target} has no {spec.class_name}"
            + _suggestion(spec, module)
        )
    try:
        agent = cls(**kwargs)
    except Exception as error:
        raise AgentError(f"agent {spec.text!r}: {spec.class_name}() failed: {error}") from error
    if not callable(getattr(agent, "act", None)):
        raise AgentError(f"agent {spec.text!r}: {spec.class_name} has no act(observation) method")
    return agent  # type: ignore[no-any-return]


def _suggestion(spec: AgentSpec, module: Any) -> str:
    """ "; did you mean ...?" naming the module's classes that have an act method."""
    import inspect

    classes = [
        name
        for name, value in vars(module).items()
        if inspect.isclass(value) and callable(getattr(value, "act", None))
    ]
    if not classes:
        return "; it has no class with an act method"
    ordered = difflib.get_close_matches(str(spec.class_name), classes, n=3, cutoff=0) or classes
    return f"; did you mean {' or '.join(f'{spec.target}:{name}' for name in ordered[:3])}?"
