"""``dp-arena plan`` and ``dp-arena run`` from the command line, and the package's
docstring examples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dp_arena.cli import main

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_plan_json_of_the_seventy_player_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "regular", "--players", "70", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["entrants"] == 70
    sizes = [
        [section["players"] for section in session["sections"]] for session in plan["sessions"]
    ]
    assert sizes == [[23, 23, 24], [23, 23, 24], [18, 18], [24], [12], []]
    assert [session["advancing"] for session in plan["sessions"]] == [70, 36, 24, 12, 6, None]
    assert plan["sessions"][-1]["round_robin"]["players"] == 6
    assert len(plan["sessions"][-1]["round_robin"]["schedule"]) == 5
    assert plan["prizes"]["places"] == [25900, 16100, 10500, 8050, 5250, 4200]


def test_plan_text_of_a_config(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(CONFIGS / "short.toml"), "--players", "33"]) == 0
    text = capsys.readouterr().out
    assert "Short tournament" in text and "33 entrants" in text
    assert "section 1: 33 players, 6 tables x 6, 3 absent, 6 deals" in text
    assert "seat position 0 of the last session: place 1 $77.00, place 2 $33.00" in text


def test_plan_refuses_what_it_cannot_plan(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "sng-round-robin", "--players", "5"]) == 2
    assert "4 or 6 players, not 5" in capsys.readouterr().err
    assert main(["plan", "regular"]) == 2
    assert "--players" in capsys.readouterr().err
    assert main(["plan", "nonsense", "--players", "8"]) == 2
    assert "neither a format" in capsys.readouterr().err


def _in_process() -> list[str]:
    """Options that keep ``dp-arena run`` in this process (the serial executor), when the
    command offers other executors."""
    import argparse

    from dp_arena.commands import run as run_command

    parser = argparse.ArgumentParser()
    run_command.add_arguments(parser)
    options = {option for action in parser._actions for option in action.option_strings}
    return ["--executor", "serial"] if "--executor" in options else []


def test_run_the_demo_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    arguments = ["run", str(CONFIGS / "demo.toml"), "--run-dir", str(tmp_path / "demo"), "--quiet"]
    assert main(arguments + _in_process()) == 0
    captured = capsys.readouterr()
    assert "final standings:" in captured.out and captured.err == ""
    results = json.loads((tmp_path / "demo" / "results.json").read_text())
    assert results["event"]["format"] == "regular"
    assert results["prizes"]["paid_cents"] == results["prizes"]["pool_cents"]


def test_run_reports_a_bad_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[event]\nname = "x"\nformat = "regular"\n[field]\ncount = 2\nfrom = ["random"]\n'
    )
    assert main(["run", str(bad), "--run-dir", str(tmp_path / "out"), *_in_process()]) == 2
    assert (
        "entrants: a regular tournament needs at least 4 entrants, not 2" in capsys.readouterr().err
    )
    assert not (tmp_path / "out").exists()  # nothing ran half-way


def test_plan_text_puts_sections_alike_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """A big session's sections, alike one after the other, share a line; every section is
    named exactly once, by the line that describes it."""
    import re

    assert main(["plan", "regular", "--players", "3000", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert main(["plan", "regular", "--players", "3000"]) == 0
    text = capsys.readouterr().out
    blocks = re.split(r"^session \d+: ", text, flags=re.MULTILINE)[1:]
    sections_sessions = [session for session in plan["sessions"] if session["sections"]]
    assert len(sections_sessions) >= 5
    for session, block in zip(sections_sessions, blocks, strict=False):
        named: list[int] = []
        for first, last, players, tables in re.findall(
            r"^    sections? (\d+)(?:-(\d+))?: (\d+) players, (\d+) tables", block, re.MULTILINE
        ):
            numbers = range(int(first), int(last or first) + 1)
            named += numbers
            for number in numbers:
                section = session["sections"][number - 1]
                assert (section["players"], section["tables"]) == (int(players), int(tables))
        assert named == list(range(1, len(session["sections"]) + 1))
    assert len(text.splitlines()) < 80  # 100 sections in the first session alone
