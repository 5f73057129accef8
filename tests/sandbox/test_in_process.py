"""One rule says which seats run in the dealer's own process: a built-in bot always, a
Python bot when trusted, nothing else ever. ``open_seat`` and ``prepare`` follow it."""

from __future__ import annotations

from pathlib import Path

import pytest

from dp_arena.agents import InProcessSeat, parse_spec
from dp_arena.sandbox import ProcessSeat, open_seat, runs_in_process

BOT = """
from dp_arena.engine import Action


class Checker:
    def act(self, observation):
        return Action.check() if not observation.to_call else Action.fold()
"""


@pytest.mark.parametrize(
    ("spec", "trusted", "in_process"),
    [
        ("tag", False, True),
        ("tag", True, True),
        ("bots/mine.py:MyBot", False, False),
        ("bots/mine.py:MyBot", True, True),
        ("somepackage.module:MyBot", True, True),
        ("somepackage.module:MyBot", False, False),
        ("cmd:./bot --fast", True, False),
        ("cmd:./bot --fast", False, False),
        ("acpc:./agent {game} {host} {port}", True, False),
    ],
)
def test_the_rule(spec: str, trusted: bool, in_process: bool) -> None:
    assert runs_in_process(parse_spec(spec), trusted) is in_process


def test_open_seat_follows_the_rule(tmp_path: Path) -> None:
    bot = tmp_path / "checker.py"
    bot.write_text(BOT, encoding="utf-8")
    spec = f"{bot}:Checker"
    for trusted in (True, False):
        seat = open_seat(spec, name="checker", trusted=trusted)
        try:
            expected = InProcessSeat if runs_in_process(parse_spec(spec), trusted) else ProcessSeat
            assert type(seat) is expected
            assert seat.wait_loaded() is None
        finally:
            seat.close()
    builtin = open_seat("tag", name="tag")
    assert isinstance(builtin, InProcessSeat)
    builtin.close()
