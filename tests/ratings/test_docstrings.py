"""The examples in the docstrings of the ratings and leaderboard modules run, and are right."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = (
    "dp_arena.ratings.blocks",
    "dp_arena.ratings.duplicate",
    "dp_arena.ratings.equity",
    "dp_arena.ratings.order",
    "dp_arena.ratings.runouts",
    "dp_arena.ratings.runs",
    "dp_arena.ratings.uncertainty",
    "dp_arena.leaderboard.luck",
    "dp_arena.leaderboard.markdown",
)


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples(module_name: str) -> None:
    module = importlib.import_module(module_name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
