"""The examples in the environment and learner docstrings run, and are right."""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path

import pytest

MODULES = [
    "dp_arena.envs.capped_holdem_v0",
    "dp_arena.envs.duplicate_holdem_v0",
    "dp_arena.envs.discrete_actions",
    "dp_arena.envs.encoding",
    "dp_arena.learn.features",
    "dp_arena.learn.policy",
]


ROOT = Path(__file__).resolve().parents[2]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples(module_name: str) -> None:
    module = importlib.import_module(module_name)
    if str(getattr(module, "__file__", "")).endswith(".py"):
        failures, tried = doctest.testmod(module, optionflags=FLAGS)
    else:
        # A compiled module (make native) keeps no docstrings: run the examples of its
        # source's module docstring against the compiled module's namespace.
        source = ROOT / (module_name.replace(".", "/") + ".py")
        docstring = ast.get_docstring(ast.parse(source.read_text()), clean=False) or ""
        test = doctest.DocTestParser().get_doctest(
            docstring, dict(vars(module)), module_name, None, 0
        )
        runner = doctest.DocTestRunner(optionflags=FLAGS)
        runner.run(test)
        failures, tried = runner.failures, runner.tries
    assert tried > 0 and failures == 0
