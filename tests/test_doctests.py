"""The examples in the docstrings run, and are right."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import dp_arena

LIGHT_PACKAGES = ("dp_arena.engine", "dp_arena.agents")


def _modules() -> list[str]:
    names = ["dp_arena"]  # the package docstring plays a hand through the top-level names
    for package_name in LIGHT_PACKAGES:
        package = importlib.import_module(package_name)
        names.append(package_name)
        names += [f"{package_name}.{info.name}" for info in pkgutil.iter_modules(package.__path__)]
    return names


@pytest.mark.parametrize("module_name", _modules())
def test_docstring_examples(module_name: str) -> None:
    module = importlib.import_module(module_name)
    failures, _ = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert failures == 0


def test_version_is_exported() -> None:
    assert dp_arena.__version__
