"""Packages whose public names load from their submodules when first used.

A package calls :func:`lazy_names` at its end with where each name lives::

    lazy_names(__name__, {"PolicyBot": "bot", "train": "train"})

Nothing is imported until a name is asked for; then the name's submodule is imported and
the name kept in the package. A public name that is also a submodule's name (``train``,
the function, in ``dp_arena.learn.train``) stays the name: importing the submodule does
not rebind it to the module, whichever is imported first. ``modules`` names submodules
that are public names themselves (``dp_arena.envs.capped_holdem_v0``), imported when first
used; ``search`` the public surfaces whose names a package gathers (``dp_arena`` itself:
the engine's, the agents', the errors', the results' and the match's), each name looked
for in them in order. The one mechanism of the package for names loaded when used:
``dp_arena`` itself, ``dp_arena.envs``, ``dp_arena.learn`` and ``dp_arena.sandbox`` call
it.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["lazy_names"]

# Old module names (dotted, in full) and the modules that took their place.
_MOVED_MODULES: dict[str, str] = {}


def _moved(old: str, new: str) -> Any:
    """What ``new`` (``module`` or ``module:name``) names, after a warning that ``old``
    moved there."""
    module_name, _, name = new.partition(":")
    warnings.warn(
        f"{old} moved: use {module_name}.{name}" if name else f"{old} moved: use {module_name}",
        DeprecationWarning,
        stacklevel=_caller_level(),
    )
    module = importlib.import_module(module_name)
    return getattr(module, name) if name else module


def _caller_level() -> int:
    """The stack level of the first frame outside this module and the import system, so
    a warning points at the line that used the old place (:func:`warnings.warn` passes
    over the import system's frames itself)."""
    frame, level = sys._getframe(2), 2  # level 1: the frame that warns
    while frame is not None and (
        frame.f_code.co_filename == __file__ or frame.f_code.co_filename.startswith("<frozen")
    ):
        level += frame.f_code.co_filename == __file__
        frame = frame.f_back  # type: ignore[assignment]
    return level


class _MovedFinder:
    """Finds an old module name (``_MOVED_MODULES``) as the module now in its place: a
    meta path finder and its loader (``importlib.abc``'s, unimported: it loads
    ``tempfile`` and ``shutil``, which a sandboxed seat must not carry)."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in _MOVED_MODULES:
            return None
        # A loader by its methods: importlib.abc.Loader is not imported (see above).
        return importlib.machinery.ModuleSpec(fullname, self)  # type: ignore[arg-type]

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module: types.ModuleType = _moved(spec.name, _MOVED_MODULES[spec.name])
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass  # the module in the old name's place has run already


_FINDER = _MovedFinder()


class _LazyPackage(types.ModuleType):
    _lazy_homes: Mapping[str, str]
    _lazy_kept: frozenset[str]
    _lazy_modules: frozenset[str]
    _lazy_search: tuple[str, ...]
    _lazy_moved: Mapping[str, str]

    def __getattr__(self, name: str) -> Any:
        if name in self._lazy_moved:
            return _moved(f"{self.__name__}.{name}", self._lazy_moved[name])
        home = self._lazy_homes.get(name)
        if home is None and name in self._lazy_modules:  # the import system binds it
            return importlib.import_module(f"{self.__name__}.{name}")
        if home is None and self._lazy_search and name in self.__dict__.get("__all__", ()):
            home = next(
                (
                    place
                    for place in self._lazy_search
                    if name in importlib.import_module(f"{self.__name__}.{place}").__all__
                ),
                None,
            )
        if home is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{self.__name__}.{home}"), name)
        super().__setattr__(name, value)
        return value

    def __dir__(self) -> list[str]:
        names = self.__dict__.get("__all__", ()) if self._lazy_search else ()
        return sorted({*self.__dict__, *self._lazy_homes, *self._lazy_modules, *names})

    def __setattr__(self, name: str, value: Any) -> None:
        kept = name in self._lazy_kept or name in self._lazy_moved
        if kept and isinstance(value, types.ModuleType):
            return  # the import system binding a submodule over a public or old name
        super().__setattr__(name, value)


def lazy_names(
    package: str,
    homes: Mapping[str, str],
    keep: Iterable[str] = (),
    *,
    modules: Iterable[str] = (),
    search: Iterable[str] = (),
    moved: Mapping[str, str] | None = None,
) -> None:
    """Make ``package``'s names in ``homes`` (name: submodule) load when first used, and
    its submodules ``modules`` too; ``keep`` names further attributes that a submodule of
    the same name must not rebind. A name of the package's ``__all__`` in none of them is
    looked for in the ``__all__`` of the submodules ``search``, in order: the public
    surfaces the package gathers. ``moved`` maps old names and submodules to their new
    places (``module`` or ``module:name``), each given with a :class:`DeprecationWarning`."""
    module = sys.modules[package]
    moved = dict(moved or {})
    module.__dict__["_lazy_moved"] = moved
    for old, new in moved.items():
        if ":" not in new:
            _MOVED_MODULES[f"{package}.{old}"] = new
    if _MOVED_MODULES and _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)
    module.__dict__["_lazy_homes"] = dict(homes)
    module.__dict__["_lazy_search"] = tuple(search)
    module.__dict__["_lazy_kept"] = frozenset(homes).union(
        keep, module.__dict__.get("__all__", ()) if search else ()
    )
    module.__dict__["_lazy_modules"] = frozenset(modules)
    module.__class__ = _LazyPackage
