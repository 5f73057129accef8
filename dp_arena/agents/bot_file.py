"""A Python bot file: read from its syntax (the names it binds, its classes that act, the
modules it imports, why it cannot hold a spec's class), compiled ahead of loading and
imported once per process. Nothing of a bot runs here but its import
(:func:`import_file`, for :func:`dp_arena.agents.spec.load_agent`)."""

from __future__ import annotations

import ast
import difflib
import hashlib
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING, Any

from dp_arena.agents.locate import locate_module
from dp_arena.agents.source import parse_source, read_source
from dp_arena.errors import AgentError

if TYPE_CHECKING:
    from dp_arena.agents.spec import AgentSpec

__all__ = [
    "MAX_LOCAL_IMPORTS",
    "class_problem",
    "import_file",
    "local_imports",
    "missing_file",
    "module_problem",
    "precompile",
    "project_imports",
    "python_classes",
]


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


def import_file(given: str, text: str) -> Any:
    """The module of the bot file ``given`` (as the spec ``text`` names it), imported once
    per process, its folder first on ``sys.path``; :class:`AgentError` when it cannot be."""
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
