"""Finding a module's files by looking at the file system, importing nothing.

A ``package.module:Class`` spec names a bot by its module. Asking Python where that
module is (``importlib.util.find_spec("package.module")``) imports ``package`` first,
which runs its ``__init__.py``: bot code, in the dealer, which holds the decks. So the
dealer finds a bot's module the way Python's path finder would, by name and file alone:
for each ``sys.path`` folder in order, ``package/__init__.py`` (a regular package),
``package.py`` (a module) or a folder ``package/`` without ``__init__.py`` (a portion of
a namespace package, used only when no folder holds a regular package or module), then
each submodule the same way within the package's folders. What ``__init__.py`` would do
to its package's ``__path__`` is not seen: it never runs here. A top-level package that
this process has already imported from a place off ``sys.path`` (an editable install's
finder) is found where it was imported from; nothing of it runs again.

Only folders of ``sys.path`` are searched (not zip files or other finders): the sandbox
runs a module bot by its folder on the path (:mod:`dp_arena.sandbox.dealer.seats`).
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dp_arena.errors import AgentError

__all__ = ["ModuleFiles", "locate_module"]


@dataclass(frozen=True, slots=True)
class ModuleFiles:
    """Where a module's files are: the ``sys.path`` folder it is found under
    (``entry``), its top-level package's folder or, for a top-level module, its file
    (``top``), and the file of its own code (``file``: the module's file or its
    package's ``__init__``; ``None`` for a namespace package, which has no code)."""

    name: str
    entry: Path
    top: Path
    file: Path | None

    @property
    def is_source(self) -> bool:
        """Whether its code is Python source that can be read (not compiled only)."""
        return self.file is not None and self.file.suffix == ".py"


# The suffixes of a module's file, in the order the path finder tries them.
_SUFFIXES = (
    *importlib.machinery.EXTENSION_SUFFIXES,
    *importlib.machinery.SOURCE_SUFFIXES,
    *importlib.machinery.BYTECODE_SUFFIXES,
)


def locate_module(name: str, search_path: Sequence[str] | None = None) -> ModuleFiles:
    """The files of the module ``name`` (dotted) on ``search_path`` (``sys.path`` by
    default), found without importing anything; :class:`AgentError` when there is none."""
    parts = name.split(".")
    given = sys.path if search_path is None else search_path
    folders = [Path(entry or os.getcwd()) for entry in given]
    found = _find(parts[0], [folder for folder in folders if folder.is_dir()])
    if found is None and search_path is None:
        found = _imported_top(parts[0])
    if found is None:
        raise AgentError(f"no module named {parts[0]!r} on the Python path")
    for depth in range(1, len(parts)):
        location, file, folders = found
        if not folders:
            raise AgentError(
                f"no module named {'.'.join(parts[: depth + 1])!r}:"
                f" {'.'.join(parts[:depth])} is a module, not a package"
            )
        found = _find(parts[depth], folders)
        if found is None:
            raise AgentError(f"no module named {'.'.join(parts[: depth + 1])!r} in {location}")
    location, file, _ = found
    # Each part is a folder within the one before: the top is as many folders up as there
    # are parts after it (in a namespace package, the portion that holds the module).
    top = location.parents[len(parts) - 2] if len(parts) > 1 else location
    return ModuleFiles(
        name, top.parent.resolve(), top.resolve(), None if file is None else file.resolve()
    )


# (its file or folder, the file of its code, the folders of its submodules)
_Found = tuple[Path, Path | None, list[Path]]


def _find(part: str, bases: Sequence[Path]) -> _Found | None:
    """``part`` within the first of ``bases`` that holds it as a regular package or a
    module, as the path finder looks; else a namespace package of every folder named
    ``part`` among them; else ``None``."""
    portions: list[Path] = []
    for base in bases:
        folder = base / part
        if folder.is_dir():
            for suffix in _SUFFIXES:
                init = folder / f"__init__{suffix}"
                if init.is_file():
                    return folder, init, [folder]
            portions.append(folder)
        for suffix in _SUFFIXES:
            module = base / f"{part}{suffix}"
            if module.is_file():
                return module, module, []
    return (portions[0], None, portions) if portions else None


def _imported_top(part: str) -> _Found | None:
    """A top-level package this process has imported from off ``sys.path``, where it was
    found; ``None`` when it has not been imported (nothing is imported here)."""
    module = sys.modules.get(part)
    spec = getattr(module, "__spec__", None)
    if spec is None or not spec.has_location or spec.origin is None:
        return None
    origin = Path(spec.origin)
    if spec.submodule_search_locations:
        return origin.parent, origin, [origin.parent]
    return origin, origin, []
