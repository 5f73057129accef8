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

import ast
import difflib
import enum
import functools
import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Any

from dp_arena.agents.agent import Agent
from dp_arena.agents.locate import locate_module
from dp_arena.agents.source import parse_source, read_source
from dp_arena.errors import AgentError
from dp_arena.names import ACPC_PREFIX, COMMAND_PREFIX, MANIFEST, REGISTRY_PREFIX

__all__ = [
    "AGENTS_DIR",
    "BUILTINS",
    "AgentSpec",
    "SpecKind",
    "class_problem",
    "load_agent",
    "local_imports",
    "missing_file",
    "module_problem",
    "parse_spec",
    "precompile",
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


def python_classes(path: Path) -> tuple[set[str], list[str]]:
    """What a Python file binds at its top level (``*`` among them when it imports
    everything of a module), and which of its classes define ``act``, read from its syntax
    only (nothing of it runs), within the bounds of :mod:`dp_arena.agents.source`
    (:class:`AgentError` for a file too large or too deeply nested to read). ``SyntaxError``
    and ``OSError`` pass through. Read once per source: a field of a thousand entrants of
    one file parses it once."""
    source = read_source(path)
    key = (str(path), hashlib.sha256(source).digest())
    if key not in _CLASSES:
        _CLASSES[key] = _top_level(parse_source(source, path))
    bound, acting = _CLASSES[key]
    return set(bound), list(acting)


_CLASSES: dict[tuple[str, bytes], tuple[frozenset[str], tuple[str, ...]]] = {}


def _top_level(tree: ast.Module) -> tuple[frozenset[str], tuple[str, ...]]:
    bound: set[str] = set()
    acting: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            bound.add(node.name)
            if any(
                isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name == "act"
                for item in node.body
            ):
                acting.append(node.name)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            bound.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                bound.update(name.id for name in ast.walk(target) if isinstance(name, ast.Name))
        else:  # anything else may bind names too (a try/if at top level): be generous
            bound.update(
                name.id
                for name in ast.walk(node)
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store)
            )
            bound.update(item.name for item in ast.walk(node) if isinstance(item, ast.ClassDef))
    return frozenset(bound), tuple(acting)


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
        module = _import_file(str(spec.target), spec.text)
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


# Bot files compiled ahead of loading, by path and SHA-256 of their source: a sandbox's
# warm template compiles its bot's file once (compiling runs no code of it), and each seat
# forked from it then runs that code instead of compiling the file again. A file whose
# source is not the one compiled is compiled as usual.
_PRECOMPILED: dict[tuple[str, bytes], CodeType] = {}


def precompile(path: Path) -> None:
    """Compile the Python file at ``path`` for :func:`load_agent` to use later; a file
    that cannot be read or compiled is left for loading to report."""
    path = path.expanduser().resolve()
    try:
        source = path.read_bytes()
        code = compile(source, str(path), "exec", dont_inherit=True)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return
    _PRECOMPILED[(str(path), hashlib.sha256(source).digest())] = code


def project_imports(path: Path) -> list[str]:
    """The dp-arena modules the Python file at ``path`` imports, read from its syntax (none
    of its code runs), in the order it names them: for ``from dp_arena.x import y`` both
    ``dp_arena.x`` and ``dp_arena.x.y``, which may be a submodule. A file that cannot be
    read or parsed (within the bounds of :mod:`dp_arena.agents.source`) names none."""
    names = _imported_names(path.expanduser(), members=True)
    project = (name for name in names if name == "dp_arena" or name.startswith("dp_arena."))
    return list(dict.fromkeys(project))


# How many of its neighbours a file bot's imports are followed through (a bot folder
# bigger than this is hashed whole).
MAX_LOCAL_IMPORTS = 1000


def local_imports(path: Path) -> list[Path]:
    """The files of ``path``'s own folder that the Python file at ``path`` imports,
    directly or through one another (``import helpers``, ``from strategy.tables import
    X``: a module ``helpers.py`` beside it, or every Python file of a package folder
    ``strategy/``), read from their syntax (none of it runs, within the bounds of
    :mod:`dp_arena.agents.source`), in path order; ``path`` itself is not among them."""
    path = path.expanduser().resolve()
    folder = path.parent
    found: set[Path] = set()
    pending = [path]
    while pending and len(found) < MAX_LOCAL_IMPORTS:
        current = pending.pop()
        for name in _imported_names(current):
            top = name.split(".")[0]
            module = folder / f"{top}.py"
            package = folder / top
            files = [module] if module.is_file() else []
            if not files and package.is_dir():
                files = sorted(package.rglob("*.py"))
            for file in files:
                file = file.resolve()
                if file != path and file not in found and "__pycache__" not in file.parts:
                    found.add(file)
                    pending.append(file)
    return sorted(found, key=lambda file: file.relative_to(folder).as_posix())


def _imported_names(path: Path, *, members: bool = False) -> list[str]:
    """The absolute module names a Python file imports, in the order it names them (none
    when it cannot be read or parsed); with ``members``, ``x.y`` too for each ``from x
    import y``, as ``y`` may be a submodule."""
    try:
        tree = parse_source(read_source(path), path)
    except (AgentError, OSError, SyntaxError, ValueError):
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
            if members:
                names.extend(
                    f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*"
                )
    return names


class _BotFileLoader(importlib.machinery.SourceFileLoader):
    """A bot file's loader: its precompiled code when the source is the one compiled."""

    # (typeshed declares the base's as a static method; SourceLoader's is this one)
    def source_to_code(  # type: ignore[override]
        self, data: Any, path: Any, *, _optimize: int = -1
    ) -> CodeType:
        if isinstance(data, bytes) and _PRECOMPILED:
            code = _PRECOMPILED.get((str(path), hashlib.sha256(data).digest()))
            if code is not None:
                return code
        return super().source_to_code(data, path, _optimize=_optimize)


# Bot files imported so far, by the path as given: a file is imported once per process,
# and seating it again (a run seats a trusted file bot at every table it plays) skips
# resolving the path again.
_IMPORTED: dict[str, Any] = {}


def _import_file(given: str, text: str) -> Any:
    module = _IMPORTED.get(given)
    if module is not None and sys.modules.get(module.__name__) is module:
        return module
    path = Path(given).expanduser().resolve()
    if not path.is_file():
        raise AgentError(f"agent {text!r}: no such file {path}")
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module_name = f"dp_arena_agent_{hashlib.sha1(str(path).encode()).hexdigest()[:12]}_{path.stem}"
    if module_name in sys.modules:
        _IMPORTED[given] = sys.modules[module_name]
        return sys.modules[module_name]
    loader_spec = importlib.util.spec_from_file_location(
        module_name, path, loader=_BotFileLoader(module_name, str(path))
    )
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
    _IMPORTED[given] = module
    return module


def module_problem(spec: AgentSpec) -> str | None:
    """Why a ``package.module:Class`` spec names nothing, found by path and read from
    its syntax alone (:mod:`dp_arena.agents.locate`: nothing of the bot is imported, so
    none of its ``__init__.py`` runs here); ``None`` when its class may be there."""
    try:
        found = locate_module(str(spec.target))
    except AgentError as error:
        return str(error)
    if found.file is None:
        return (
            f"{spec.target} is a namespace package (a folder without __init__.py):"
            f" it holds no class {spec.class_name}"
        )
    return class_problem(found.file, spec) if found.is_source else None


def missing_file(path: Path, class_name: str | None = None) -> str:
    """Why a bot file is not there, with the Python files beside it that come closest (a
    typo is the usual reason; with ``class_name``, each suggested as a whole spec), or
    the folder that is missing."""
    import difflib

    folder = path.parent
    if not folder.is_dir():
        return f"no such file {path} (there is no folder {folder})"
    try:
        neighbours = sorted(item.name for item in folder.iterdir() if item.suffix == ".py")[:1000]
    except OSError:
        neighbours = []
    close = difflib.get_close_matches(path.name, neighbours, n=3, cutoff=0.6)
    if not close:
        return f"no such file {path}"
    suffix = f":{class_name}" if class_name else ""
    meant = " or ".join(f"{folder / name}{suffix}" for name in close)
    return f"no such file {path}; did you mean {meant}?"


def class_problem(path: Path, spec: AgentSpec) -> str | None:
    """Why ``path`` cannot hold the spec's class, read from its syntax alone (nothing runs
    here); ``None`` when it may (the class is bound at the top level somehow)."""
    try:
        bound, acting = python_classes(path)
    except SyntaxError as error:
        return f"{path} is not valid Python (line {error.lineno}: {error.msg})"
    except AgentError as error:
        return str(error)
    except (OSError, ValueError) as error:
        return f"cannot read {path}: {error}"
    if spec.class_name in bound or "*" in bound:  # a star import may bind it
        return None
    close = difflib.get_close_matches(str(spec.class_name), acting, n=3, cutoff=0) or acting
    hint = (
        f"; did you mean {' or '.join(f'{spec.target}:{name}' for name in close[:3])}?"
        if close
        else "; it defines no class with an act method"
    )
    return f"{path} has no class {spec.class_name}{hint}"
