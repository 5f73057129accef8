"""The examples in the environment and learner docstrings run, and are right."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "dp_arena.envs.capped_holdem_v0",
    "dp_arena.envs.duplicate_holdem_v0",
    "dp_arena.envs.discrete_actions",
    "dp_arena.envs.encoding",
    "dp_arena.learn.features",
    "dp_arena.learn.policy",
]


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples(module_name: str) -> None:
    module = importlib.import_module(module_name)
    failures, tried = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert tried > 0 and failures == 0
