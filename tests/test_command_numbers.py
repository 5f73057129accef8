"""Every number on the command line is bounded: a slip of a few zeros is refused with the
option and its range (exit status 2) before anything is built, played or allocated."""

from __future__ import annotations

from pathlib import Path

import pytest

from dp_arena.cli import main

HUGE = "1" + "0" * 12
DEMO = Path(__file__).resolve().parents[1] / "configs" / "demo.toml"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["plan", "regular", "--players", HUGE], "--players must be an integer from 1 to"),
        (["match", "tag", "random", "--deals", HUGE], "--deals must be an integer from 1 to"),
        (["leaderboard", "show", "nowhere", "--resamples", HUGE], "resamples must be from 2"),
        (["leaderboard", "show", "nowhere", "--margin", "inf"], "margin must be a positive"),
        (["leaderboard", "show", "nowhere", "--tau", "nan"], "tau not negative, all finite"),
        (["luck", "--seeds", HUGE], "--seeds must be from 1 to 10_000"),
        (["luck", "--truth-deals", HUGE], "the truth match plays 2 to 100_000 deals"),
        (["luck", "--freezeouts", f"1,{HUGE}"], "every length must be 1 to 1_000 freezeouts"),
        (["train", "--tables", HUGE], "train: tables must be an integer from 2 to 1_000"),
        (["train", "--deals", HUGE], "train: deals must be an integer from 1 to 10_000"),
        (["train", "--episodes", HUGE], "train: episodes must be an integer from 1 to"),
        (["train", "--learning-rate", "inf"], "learning_rate must be positive"),
        (["run", str(DEMO), "--workers", HUGE], "--workers must be from 1 to 10_000"),
        (["resume", "nowhere", "--workers", HUGE], "--workers must be from 1 to 10_000"),
    ],
)
def test_a_number_out_of_range_is_refused_naming_the_option(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(arguments) == 2
    error = capsys.readouterr().err
    last = error.splitlines()[-1]  # `run` may first say which deck key it would use
    assert last.startswith(f"dp-arena {arguments[0]}") and message in last, error
    assert "Traceback" not in error


@pytest.mark.parametrize(
    ("option", "value"),
    [("--states", HUGE), ("--deals", HUGE), ("--action-timeout", "nan"), ("--load-timeout", "inf")],
)
def test_check_agent_refuses_a_number_out_of_range(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check-agent", "random", option, value]) == 2
    assert capsys.readouterr().err.startswith(f"dp-arena check-agent: {option} must be from ")
