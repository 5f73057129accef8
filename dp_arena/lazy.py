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
import sys
import types
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["lazy_names"]


class _LazyPackage(types.ModuleType):
    _lazy_homes: Mapping[str, str]
    _lazy_kept: frozenset[str]
    _lazy_modules: frozenset[str]
    _lazy_search: tuple[str, ...]

    def __getattr__(self, name: str) -> Any:
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
) -> None:
    """Make ``package``'s names in ``homes`` (name: submodule) load when first used, and
    its submodules ``modules`` too; ``keep`` names further attributes that a submodule of
    the same name must not rebind. A name of the package's ``__all__`` in none of them is
    looked for in the ``__all__`` of the submodules ``search``, in order: the public
    surfaces the package gathers."""
    module = sys.modules[package]
    module.__dict__["_lazy_homes"] = dict(homes)
    module.__dict__["_lazy_search"] = tuple(search)
    module.__dict__["_lazy_kept"] = frozenset(homes).union(
        keep, module.__dict__.get("__all__", ()) if search else ()
    )
    module.__dict__["_lazy_modules"] = frozenset(modules)
    module.__class__ = _LazyPackage
