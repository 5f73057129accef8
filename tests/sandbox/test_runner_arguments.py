"""The runner reads the arguments the dealer gives it (``SPEC [--path DIR]...``) and
refuses anything else with its usage."""

from __future__ import annotations

import pytest

from dp_arena.sandbox.bot.runner import _Arguments
from dp_arena.sandbox.dealer.seats import _runner_args


@pytest.mark.parametrize("paths", [(), ("/bots/a",), ("/bots/a", "/bots/b c")])
def test_the_dealers_arguments_are_read_back(paths: tuple[str, ...]) -> None:
    args = _Arguments(list(_runner_args("/bots/a/bot.py:Bot", paths)))
    assert (args.spec, args.path) == ("/bots/a/bot.py:Bot", list(paths))


@pytest.mark.parametrize(
    "argv",
    [[], ["bot.py:Bot", "--path"], ["bot.py:Bot", "--paths", "/x"], ["a.py:A", "b.py:B", "/x"]],
)
def test_anything_else_is_refused_with_the_usage(argv: list[str]) -> None:
    with pytest.raises(SystemExit, match=r"usage: python -m dp_arena\.sandbox\.bot\.runner SPEC"):
        _Arguments(argv)
