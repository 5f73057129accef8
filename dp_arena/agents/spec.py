"""Agent specs: the strings that name a bot, and loading Python bots in-process.

A spec is one of:

- a built-in name: ``random``, ``calling-station``, ``aggressive``, ``tag``, ``equity``,
  ``learned`` (the bots in the repository's ``agents/`` folder);
- ``path/to/file.py:ClassName``: a class in a Python file; the file's folder is put on
  ``sys.path`` first, so a bot may be several modules;
- ``package.module:ClassName``: a class in an importable module;
- anything else is a command line (``node bot.js``, ``./mybot --fast``) for an external
  program speaking the pipe protocol of ``docs/protocol.md``; ``cmd:`` forces this
  reading (``cmd:bot.py:Main`` runs a program called ``bot.py:Main``).

Whether a bot runs in-process (trusted) or sandboxed is decided by whoever seats it,
not by the spec: see :mod:`dp_arena.sandbox`.
"""

from __future__ import annotations

import enum
import hashlib
import importlib
import importlib.util
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dp_arena.agents.agent import Agent
from dp_arena.errors import AgentError

__all__ = ["AGENTS_DIR", "BUILTINS", "AgentSpec", "SpecKind", "load_agent", "parse_spec"]

# The repository's built-in bots, next to the package.
AGENTS_DIR = Path(__file__).resolve().parents[2] / "agents"

BUILTINS: dict[str, str] = {
    "random": "random_bot.py:RandomBot",
    "calling-station": "calling_station.py:CallingStation",
    "aggressive": "aggressive.py:AggressiveBot",
    "tag": "tag.py:TightAggressiveBot",
    "equity": "equity.py:EquityBot",
    "learned": "learned.py:LearnedBot",
}

_FILE_SPEC = re.compile(r"^(?P<path>[^\s:]+\.py):(?P<name>[A-Za-z_]\w*)$")
_MODULE_SPEC = re.compile(r"^(?P<module>[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*):(?P<name>[A-Za-z_]\w*)$")


class SpecKind(enum.StrEnum):
    BUILTIN = "builtin"
    FILE = "file"
    MODULE = "module"
    COMMAND = "command"


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """A parsed spec. ``target`` is a file path, a module name or the command's argv."""

    text: str
    kind: SpecKind
    target: str | tuple[str, ...]
    class_name: str | None = None

    @property
    def is_python(self) -> bool:
        return self.kind is not SpecKind.COMMAND

    @property
    def name(self) -> str:
        """A short display name: the built-in name, the class name or the program."""
        if self.kind is SpecKind.BUILTIN:
            return self.text
        if self.class_name:
            return self.class_name
        return Path(self.target[0]).name if isinstance(self.target, tuple) else str(self.target)


def parse_spec(text: str) -> AgentSpec:
    """Parse an agent spec; ``AgentError`` explains what is wrong with it."""
    if not isinstance(text, str) or not text.strip():
        raise AgentError(f"an agent spec must be a non-empty string, not {text!r}")
    text = text.strip()
    if text.startswith("cmd:"):
        argv = _split_command(text[4:], text)
        return AgentSpec(text, SpecKind.COMMAND, argv)
    if text in BUILTINS:
        path, class_name = BUILTINS[text].split(":")
        return AgentSpec(text, SpecKind.BUILTIN, str(AGENTS_DIR / path), class_name)
    match = _FILE_SPEC.match(text)
    if match:
        return AgentSpec(text, SpecKind.FILE, match["path"], match["name"])
    match = _MODULE_SPEC.match(text)
    if match:
        return AgentSpec(text, SpecKind.MODULE, match["module"], match["name"])
    return AgentSpec(text, SpecKind.COMMAND, _split_command(text, text))


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
        module = _import_file(Path(str(spec.target)), spec.text)
    cls = getattr(module, spec.class_name, None)
    if cls is None:
        raise AgentError(f"agent {spec.text!r}: {spec.target} has no {spec.class_name}")
    try:
        agent = cls(**kwargs)
    except Exception as error:
        raise AgentError(f"agent {spec.text!r}: {spec.class_name}() failed: {error}") from error
    if not callable(getattr(agent, "act", None)):
        raise AgentError(f"agent {spec.text!r}: {spec.class_name} has no act(observation) method")
    return agent  # type: ignore[no-any-return]


def _import_file(path: Path, text: str) -> Any:
    path = path.expanduser().resolve()
    if not path.is_file():
        raise AgentError(f"agent {text!r}: no such file {path}")
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module_name = f"dp_arena_agent_{hashlib.sha1(str(path).encode()).hexdigest()[:12]}_{path.stem}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise AgentError(f"agent {text!r}: cannot import {path}")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[module_name]
        raise AgentError(
            f"agent {text!r}: importing {path} failed: {type(error).__name__}: {error}"
        ) from error
    return module
