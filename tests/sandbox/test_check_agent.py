"""``dp-arena check-agent``: passes a good bot with every street, seat count and betting
structure covered; fails a bad one with its first problems and a non-zero exit."""

from __future__ import annotations

import json

import pytest

from dp_arena.cli import main

from .conftest import HOSTILE, REPO

TIGHT = f"{REPO / 'examples' / 'bots' / 'python_class' / 'bot.py'}:TightCaller"


def test_a_good_bot_passes_with_full_coverage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-agent", TIGHT, "--states", "48", "--deals", "6", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] and report["loaded"] and report["problems"] == []
    assert report["random_state_decisions"] == 48
    coverage = report["coverage"]
    for key in (
        "preflop",
        "flop",
        "turn",
        "river",
        "heads-up",
        "multi-way",
        "no-limit",
        "pot-limit",
    ):
        assert coverage[key] > 0, key
    assert report["sessions"] == 2
    assert report["isolation"]["mode"] in ("bubblewrap", "unshare", "none")


def test_an_illegal_bot_fails_and_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-agent", f"{HOSTILE / 'illegal' / 'bot.py'}:Bot", "--states", "12"]) == 1
    out = capsys.readouterr().out
    assert "result: FAIL" in out
    assert "ILLEGAL in random states" in out
    assert "isolation mode:" in out


def test_a_bot_that_never_loads_fails_with_a_load_timeout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        [
            "check-agent",
            f"{HOSTILE / 'never_loads' / 'bot.py'}:Bot",
            "--load-timeout",
            "1.5",
            "--json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 3 and not report["loaded"]  # a bot that did not load
    assert report["problems"][0].startswith("LOAD_TIMEOUT")


def test_the_node_example_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "check-agent",
                f"node {REPO / 'examples' / 'bots' / 'node' / 'bot.js'}",
                "--states",
                "24",
                "--deals",
                "4",
            ]
        )
        == 0
    )
    assert "result: PASS" in capsys.readouterr().out


def test_a_bot_drawing_from_the_global_random_module_is_not_repeatable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = f"{HOSTILE / 'unseeded' / 'bot.py'}:Bot"
    assert main(["check-agent", spec, "--states", "40", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["repeatable"] is False and not report["passed"]
    (problem,) = report["problems"]
    assert "not repeatable" in problem and "global random module" in problem


def test_a_seeded_bot_is_repeatable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-agent", "random", "--states", "40", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["repeatable"] is True


def test_submit_checks_as_many_states_as_check_agent(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse

    from dp_arena.commands.check_agent import add_arguments as check_arguments
    from dp_arena.commands.submit import add_arguments as submit_arguments

    defaults = []
    for add in (check_arguments, submit_arguments):
        parser = argparse.ArgumentParser()
        add(parser)
        defaults.append(parser.parse_args(["x"]).states)
    assert defaults[0] == defaults[1] == 200
    # And a careless bot is refused at submit for the same reason.
    registry = str(tmp_path / "registry")
    assert main(["submit", str(HOSTILE / "unseeded"), "--registry", registry]) != 0
    captured = capsys.readouterr()
    assert "not repeatable" in captured.out + captured.err
