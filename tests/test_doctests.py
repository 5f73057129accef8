"""The examples in the docstrings run, and are right: every module of the package whose
source holds an example (``>>>``), and the built-in bots, found by reading the sources,
so a new example runs without being listed anywhere."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

import dp_arena
from dp_arena.agents.spec import AGENTS_DIR

ROOT = Path(dp_arena.__file__).resolve().parent
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _has_examples(path: Path) -> bool:
    source = path.read_text()
    if ">>>" not in source:
        return False
    return any(">>>" in docstring for docstring in _docstrings(ast.parse(source)))


def _docstrings(tree: ast.Module) -> list[str]:
    return [
        docstring
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and (docstring := ast.get_docstring(node, clean=False)) is not None
    ]


def _modules() -> list[str]:
    names = [dp_arena.__name__] if _has_examples(ROOT / "__init__.py") else []
    for info in pkgutil.walk_packages(dp_arena.__path__, prefix="dp_arena."):
        relative = info.name.split(".")[1:]
        path = ROOT.joinpath(*relative)
        path = path / "__init__.py" if info.ispkg else path.with_suffix(".py")
        if path.is_file() and _has_examples(path):
            names.append(info.name)
    return names


def _bots() -> list[str]:
    return sorted(path.name for path in AGENTS_DIR.glob("*.py") if _has_examples(path))


def _run(module: ModuleType, source: Path) -> tuple[int, int]:
    if str(getattr(module, "__file__", "")).endswith(".py"):
        failures, tried = doctest.testmod(module, optionflags=FLAGS)
        return failures, tried
    # A compiled module (make native) keeps no docstrings: run the examples of its
    # source's docstrings against the compiled module's namespace.
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    parser = doctest.DocTestParser()
    for index, docstring in enumerate(_docstrings(ast.parse(source.read_text()))):
        test = parser.get_doctest(
            docstring, dict(vars(module)), f"{module.__name__}[{index}]", str(source), 0
        )
        runner.run(test)
    return runner.failures, runner.tries


@pytest.mark.parametrize("module_name", _modules())
def test_docstring_examples(module_name: str) -> None:
    module = importlib.import_module(module_name)
    relative = module_name.split(".")[1:]
    source = ROOT.joinpath(*relative)
    source = source / "__init__.py" if source.is_dir() else source.with_suffix(".py")
    failures, tried = _run(module, source)
    assert tried > 0 and failures == 0


@pytest.mark.parametrize("file_name", _bots())
def test_the_built_in_bots_examples(file_name: str) -> None:
    from dp_arena.agents.spec import BUILTINS, load_agent

    name = next(name for name, target in BUILTINS.items() if target.startswith(f"{file_name}:"))
    module = sys.modules[type(load_agent(name)).__module__]
    failures, tried = _run(module, AGENTS_DIR / file_name)
    assert tried > 0 and failures == 0


def test_version_is_exported() -> None:
    assert dp_arena.__version__
