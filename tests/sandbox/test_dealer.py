"""The dealer: nothing of a sandboxed bot runs in it, a bot's source is read there only
within bounds, and seats open whatever descriptors it holds. Each attack is a hostile bot
against the commands it reached: ``match``, ``check-agent``, ``run``, ``plan`` and
``submit``.

- ``smuggler`` is a package bot (``smuggler.bot:Bot``) whose ``__init__.py``, if it ever
  runs in the dealer, leaves a marker in a folder only the dealer can write and wraps the
  dealer's deck function to hand every deck to its sandboxed copies. A load check that
  asks Python where ``smuggler.bot`` is imports ``smuggler`` first; the dealer must find
  it by path instead.
- ``deep_source`` is a bot file with one expression of thousands of terms: Python's
  parser recurses once per term and would raise ``RecursionError`` in the dealer.
- ``crowded`` is seated by a dealer holding more than 1,024 descriptors, past which
  ``select`` refuses every one.

The CLI runs in a process of its own where what it imports or holds matters (a package
imported once stays imported in a test process; descriptors are per process).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dp_arena.cli import main
from dp_arena.commands.submit import submit
from dp_arena.errors import SubmissionError
from dp_arena.registry import Registry

from .conftest import HOSTILE


def cli(
    *arguments: str, cwd: Path, python_path: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``dp-arena ARGUMENTS`` in a process of its own, ``python_path`` on its ``sys.path``."""
    environment = dict(os.environ)
    environment.pop("RAY_ADDRESS", None)
    if python_path is not None:
        environment["PYTHONPATH"] = str(python_path)
    return subprocess.run(
        [sys.executable, "-m", "dp_arena.cli", *arguments],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def event_config(tmp_path: Path, agent: str, *, name: str = "hostile") -> Path:
    """A small regular event: the bot ``agent`` as the entrant ``name``, and 3 built-ins."""
    config = tmp_path / "event.toml"
    config.write_text(
        '[event]\nname = "dealer"\nformat = "regular"\nseed = 5\n\n'
        '[field]\ncount = 3\nfrom = ["random", "calling-station"]\n\n'
        f'[[entrants]]\nname = "{name}"\nagent = "{agent}"\n'
    )
    return config


# -- no bot code runs in the dealer -----------------------------------------------------

CALLER = "smuggler.bot:Bot"


@pytest.fixture
def smuggler(tmp_path: Path) -> Path:
    """The folder on the Python path that holds the ``smuggler`` package: writable by the
    dealer (root here) alone, and not shown to the sandboxed bot, which sees its package."""
    folder = tmp_path / "path-entry"
    shutil.copytree(HOSTILE / "smuggler", folder)
    return folder


def assert_never_ran_in_the_dealer(folder: Path) -> None:
    marker = folder / "ran-in-the-dealer"
    assert not marker.exists(), f"the bot's __init__.py ran in the dealer: {marker.read_text()}"
    assert not (folder / "smuggler" / "decks").exists()


def test_a_package_bots_init_never_runs_in_dp_arena_match(smuggler: Path, tmp_path: Path) -> None:
    done = cli(
        "match", CALLER, "calling-station", "--deals", "4", "--seed", "3", "--json", "--quiet",
        cwd=tmp_path, python_path=smuggler,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert_never_ran_in_the_dealer(smuggler)
    result = json.loads(done.stdout)
    assert result["faults"] == []  # it played, sandboxed, and saw no leaked deck
    assert [score["hands"] for score in result["agents"]] == [8, 8]


def test_a_package_bots_init_never_runs_in_check_agent(smuggler: Path, tmp_path: Path) -> None:
    done = cli(
        "check-agent", CALLER, "--states", "12", "--deals", "2", "--json",
        cwd=tmp_path, python_path=smuggler,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["passed"]
    assert_never_ran_in_the_dealer(smuggler)


def test_a_misspelled_class_of_a_package_bot_is_found_by_path(
    smuggler: Path, tmp_path: Path
) -> None:
    """The did-you-mean of a file bot, for a module bot: read from the module's syntax."""
    done = cli(
        "check-agent", "smuggler.bot:Bto", cwd=tmp_path, python_path=smuggler
    )  # fmt: skip
    assert done.returncode == 2
    assert "has no class Bto; did you mean smuggler.bot:Bot?" in done.stderr
    assert "Traceback" not in done.stderr
    assert_never_ran_in_the_dealer(smuggler)
    done = cli("check-agent", "smuggler.bots:Bot", cwd=tmp_path, python_path=smuggler)
    assert done.returncode == 2 and "no module named 'smuggler.bots'" in done.stderr
    assert_never_ran_in_the_dealer(smuggler)


def test_a_package_bots_init_never_runs_in_plan_or_run(smuggler: Path, tmp_path: Path) -> None:
    config = event_config(tmp_path, CALLER, name="smuggler")
    planned = cli("plan", str(config), cwd=tmp_path, python_path=smuggler)
    assert planned.returncode == 0, planned.stderr
    assert_never_ran_in_the_dealer(smuggler)
    run_dir = tmp_path / "run"
    done = cli(
        "run", str(config), "--run-dir", str(run_dir), "--quiet", "--executor", "serial",
        cwd=tmp_path, python_path=smuggler,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert_never_ran_in_the_dealer(smuggler)
    results = json.loads((run_dir / "results.json").read_text())
    assert [fault for fault in results["faults"] if fault["player"] == "smuggler"] == []
    assert len(results["standings"]) == 4


def test_a_package_bot_that_cannot_be_found_is_refused_by_the_configs_check(
    smuggler: Path, tmp_path: Path
) -> None:
    config = event_config(tmp_path, "smuggler.bot:Bto")
    done = cli("plan", str(config), cwd=tmp_path, python_path=smuggler)
    assert done.returncode == 2
    assert "has no class Bto; did you mean smuggler.bot:Bot?" in done.stderr
    assert_never_ran_in_the_dealer(smuggler)


# -- bot source is read within bounds ---------------------------------------------------


def deep_source(tmp_path: Path, terms: int) -> Path:
    """A copy of the ``deep_source`` bot folder whose ``bot.py`` ends in one expression of
    ``terms`` terms."""
    folder = tmp_path / f"deep-{terms}"
    shutil.copytree(HOSTILE / "deep_source", folder)
    with (folder / "bot.py").open("a") as bot:
        bot.write("\n\nLEVELS = " + "+".join(["1"] * terms) + "\n")
    return folder


# 200,000 terms, as the attack was measured: over the token bound before any parsing.
# 20,000 terms: under it, and deeper than Python's parser can go.
DEEP = [(200_000, "is too large to read"), (20_000, "is too deeply nested to read")]


@pytest.mark.parametrize(("terms", "refusal"), DEEP)
def test_deep_source_is_refused_by_check_agent_and_match(
    terms: int, refusal: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = f"{deep_source(tmp_path, terms) / 'bot.py'}:Bot"
    assert main(["check-agent", bot]) == 2
    assert f"bot.py {refusal}" in capsys.readouterr().err
    arguments = ["match", bot, "calling-station", "--deals", "2", "--seed", "3", "--quiet"]
    assert main(arguments) == 2
    assert f"bot.py {refusal}" in capsys.readouterr().err


@pytest.mark.parametrize(("terms", "refusal"), DEEP)
def test_deep_source_is_refused_by_the_configs_check(
    terms: int, refusal: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = event_config(tmp_path, f"{deep_source(tmp_path, terms) / 'bot.py'}:Bot")
    arguments = ["run", str(config), "--run-dir", str(tmp_path / "run"), "--quiet"]
    assert main([*arguments, "--executor", "serial"]) == 2
    err = capsys.readouterr().err
    assert "entrants[0].agent" in err and f"bot.py {refusal}" in err
    assert not (tmp_path / "run" / "results.json").exists()


@pytest.mark.parametrize(("terms", "refusal"), DEEP)
def test_deep_source_is_refused_at_submission_before_any_sandbox(
    terms: int, refusal: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = Registry(tmp_path / "registry")
    with pytest.raises(SubmissionError) as refused:
        submit(deep_source(tmp_path, terms), registry=registry)
    assert refused.value.reason == "failed_check"
    assert f"deep-source: ./bot.py {refusal}" in str(refused.value)
    assert "template" not in capsys.readouterr().err  # no sandbox was started for it
    assert registry.list() == []


# -- any number of descriptors ----------------------------------------------------------

CROWDED_DEALER = """
import contextlib, io, json, os, resource, sys
from dp_arena.cli import main

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]


def command(*arguments):
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        status = main(list(arguments))
    return {"status": status, "output": json.loads(output.getvalue())}


bot = sys.argv[1]
match = command("match", bot, "calling-station", "--deals", "4", "--seed", "3", "--json", "--quiet")
check = command("check-agent", bot, "--states", "12", "--deals", "2", "--json")
print(json.dumps({"highest": max(held), "match": match, "check": check}))
"""


def test_a_dealer_holding_over_1024_descriptors_still_seats_sandboxed_bots(tmp_path: Path) -> None:
    """A supervisor's or a busy server's descriptors: ``select`` would refuse the seat's
    (numbered past 1,024) and every seat would fail to load; ``poll`` does not care. The
    bot also sees none of them."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"the hard limit of open files here is {hard}, under 1,200")
    bot = f"{HOSTILE / 'crowded' / 'bot.py'}:Bot"
    done = subprocess.run(
        [sys.executable, "-c", CROWDED_DEALER, bot],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["highest"] > 1100
    match, check = outcome["match"], outcome["check"]
    faults = [f"{fault['kind']}: {fault['detail']}" for fault in match["output"]["faults"]]
    assert match["status"] == 0 and faults == []
    assert [score["hands"] for score in match["output"]["agents"]] == [8, 8]
    assert check["status"] == 0, check["output"]["problems"]
    assert check["output"]["passed"] and check["output"]["loaded"]
