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
it. ``moved`` keeps the old places of moved modules and names working, each with a
:class:`DeprecationWarning` naming the new one (``dp_arena.sandbox``'s flat modules before
its wings, the environments' before theirs, ``dp_arena.runner``'s executor options).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import importlib.abc

__all__ = ["lazy_names"]


class _MovedModules:
    """The import system's finder of moved modules: an old name is imported as the module
    of its new home, with a warning naming it. (A finder and loader by their methods:
    ``importlib.abc``'s base classes would load ``importlib.resources``, and with it
    ``tempfile`` and ``shutil``, into every process that imports the package, a sandboxed
    bot's too.)"""

    def __init__(self) -> None:
        self.homes: dict[str, str] = {}

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.homes:
            return None
        return importlib.machinery.ModuleSpec(fullname, cast("importlib.abc.Loader", self))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # the import system's blank module, replaced in exec_module

    def exec_module(self, module: types.ModuleType) -> None:
        # The import system then takes the module under the old name from sys.modules.
        sys.modules[module.__name__] = moved_module(module.__name__, self.homes[module.__name__])


_MOVED = _MovedModules()


def moved_module(old: str, new: str) -> Any:
    """The module ``new``, or with ``module:name`` that module's name, asked for by its old
    name ``old``: a warning names the new one (pointing at the code that asked, past the
    import system's frames)."""
    module, _, name = new.partition(":")
    said = f"import {name} from {module}" if name else f"import {module}"
    warnings.warn(f"{old} moved: {said}", DeprecationWarning, stacklevel=3)
    found = importlib.import_module(module)
    return getattr(found, name) if name else found


class _LazyPackage(types.ModuleType):
    _lazy_homes: Mapping[str, str]
    _lazy_kept: frozenset[str]
    _lazy_modules: frozenset[str]
    _lazy_moved: Mapping[str, str]
    _lazy_search: tuple[str, ...]

    def __getattr__(self, name: str) -> Any:
        if name in self._lazy_moved:  # kept, as the import system keeps a submodule
            value = moved_module(f"{self.__name__}.{name}", self._lazy_moved[name])
            super().__setattr__(name, value)
            return value
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
        if name in self._lazy_kept and isinstance(value, types.ModuleType):
            return  # the import system binding a submodule over a public name
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
    surfaces the package gathers. ``moved`` maps the names of submodules and names that
    moved to their new homes (full module names; ``module:name`` for a name): the old name
    still imports, with a warning."""
    module = sys.modules[package]
    module.__dict__["_lazy_homes"] = dict(homes)
    module.__dict__["_lazy_search"] = tuple(search)
    module.__dict__["_lazy_kept"] = frozenset(homes).union(
        keep, module.__dict__.get("__all__", ()) if search else ()
    )
    module.__dict__["_lazy_modules"] = frozenset(modules)
    module.__dict__["_lazy_moved"] = dict(moved or {})
    _MOVED.homes.update(
        {f"{package}.{name}": home for name, home in (moved or {}).items() if ":" not in home}
    )
    if moved and _MOVED not in sys.meta_path:
        sys.meta_path.append(_MOVED)
    module.__class__ = _LazyPackage
