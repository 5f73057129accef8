"""Checkpoints and resume: ``dp-arena run`` killed with SIGKILL at several moments
(between units, inside a commit, right after one) and then ``dp-arena resume`` ends
with byte for byte the results.json of the plain serial event driver; a resume refuses
a changed config, bot or code version."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from dp_arena.cli import main
from dp_arena.errors import RunError
from dp_arena.runner import ExecutorOptions, RunStore, resume_run, start_run
from dp_arena.tournament.loading import load_config

from .helpers import (
    BOTS,
    ROOT,
    cli,
    cli_command,
    cli_environment,
    cli_folder,
    reference_results,
    snapshot,
    snapshot_reference,
    stored_units,
    write_config,
)

SERIAL = ExecutorOptions("serial")
KILLER = Path(__file__).resolve().with_name("kill_at_commit.py")


@dataclass(frozen=True)
class Event:
    config: Path
    reference: Path  # the run directory of the plain serial driver
    units: int  # table-sessions in the whole event
    environment: dict[str, str]  # runs the snapshot of the code

    @property
    def results(self) -> bytes:
        return (self.reference / "results.json").read_bytes()


@pytest.fixture(scope="module")
def event(tmp_path_factory: pytest.TempPathFactory) -> Event:
    """A 24-player event, a frozen copy of the code to run it with (every process of a
    kill-and-resume test must run the same source), and the serial driver's results."""
    folder = tmp_path_factory.mktemp("event")
    environment = snapshot(folder / "code")
    config = write_config(folder, players=24)
    reference = folder / "reference"
    snapshot_reference(config, reference, environment)
    units = len(json.loads((reference / "results.json").read_text())["histories"])
    return Event(config, reference, units, environment)


def _assert_same_as_reference(run_dir: Path, event: Event) -> None:
    assert (run_dir / "results.json").read_bytes() == event.results
    histories = sorted(path.name for path in (event.reference / "histories").iterdir())
    assert sorted(path.name for path in (run_dir / "histories").iterdir()) == histories
    for name in histories:
        assert (run_dir / "histories" / name).read_bytes() == (
            event.reference / "histories" / name
        ).read_bytes()
    assert stored_units(run_dir) == event.units


def _resume(event: Event, run_dir: Path) -> dict[str, int]:
    """``dp-arena resume`` in a fresh process; the figures of its runner.json."""
    resumed = cli(
        "resume", str(run_dir), "--executor", "serial", "--quiet", extra_env=event.environment
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "came from the checkpoint store" in resumed.stdout
    figures: dict[str, int] = json.loads((run_dir / "runner.json").read_text())
    return figures


def _kill_when_stored(event: Event, run_dir: Path, units: int) -> int:
    """Start ``dp-arena run`` and SIGKILL it once the store holds ``units`` units; the
    units stored when it died."""
    process = subprocess.Popen(
        cli_command(
            "run", str(event.config), "--run-dir", str(run_dir), "--executor", "serial", "--quiet"
        ),
        cwd=cli_folder(event.environment),
        env=cli_environment(event.environment),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while (
            stored_units(run_dir) < units and process.poll() is None and time.monotonic() < deadline
        ):
            time.sleep(0.002)
        process.send_signal(signal.SIGKILL)
    finally:
        _, error = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL, error.decode()
    return stored_units(run_dir)


@pytest.mark.parametrize("fraction", [0.0, 0.5])
def test_a_run_killed_between_units_resumes_to_the_same_results(
    event: Event, tmp_path: Path, fraction: float
) -> None:
    run_dir = tmp_path / "run"
    stored = _kill_when_stored(event, run_dir, max(1, int(event.units * fraction)))
    assert 0 < stored < event.units
    assert not (run_dir / "results.json").exists()
    figures = _resume(event, run_dir)
    assert figures["units_from_store"] == stored
    assert figures["units_played"] == event.units - stored
    _assert_same_as_reference(run_dir, event)


@pytest.mark.parametrize(("when", "unit"), [("before", 20), ("after", -1)])
def test_a_run_killed_inside_or_right_after_a_commit_resumes_to_the_same_results(
    event: Event, tmp_path: Path, when: str, unit: int
) -> None:
    """``before``: killed inside the 20th unit's transaction (INSERT done, no COMMIT);
    ``after``: killed right after the last unit's COMMIT, before the event hears of it."""
    at_unit = unit if unit > 0 else event.units
    run_dir = tmp_path / "run"
    process = subprocess.run(
        [
            sys.executable,
            str(KILLER),
            when,
            str(at_unit),
            "run",
            str(event.config),
            "--run-dir",
            str(run_dir),
            "--executor",
            "serial",
            "--quiet",
        ],
        cwd=ROOT,
        env=cli_environment(event.environment),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert process.returncode == -signal.SIGKILL, process.stderr
    stored = at_unit - 1 if when == "before" else at_unit
    assert stored_units(run_dir) == stored
    assert not (run_dir / "results.json").exists()
    figures = _resume(event, run_dir)
    assert (figures["units_from_store"], figures["units_played"]) == (stored, event.units - stored)
    _assert_same_as_reference(run_dir, event)


@pytest.fixture()
def stopped_run(tmp_path: Path, fixed_code_version: None) -> tuple[Path, Path, Path]:
    """A run of a config with a bot file of its own, every unit stored, then results.json
    removed as if it had been killed at the very end: (run dir, config, bot file)."""
    folder = tmp_path / "event"
    bot = folder / "bots" / "flaky.py"
    bot.parent.mkdir(parents=True)
    shutil.copy(BOTS / "flaky.py", bot)
    config = write_config(
        folder,
        players=8,
        entrants='[[entrants]]\nname = "flaky"\nagent = "bots/flaky.py:Flaky"\ntrusted = true\n',
    )
    run_dir = tmp_path / "run"
    start_run(load_config(config), run_dir, SERIAL, quiet=True)
    (run_dir / "results.json").unlink()
    return run_dir, config, bot


def test_a_resume_over_a_complete_store_plays_nothing_and_writes_the_same_results(
    stopped_run: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    run_dir, config, _ = stopped_run
    reference = reference_results(config, tmp_path / "reference")
    outcome = resume_run(run_dir, SERIAL, quiet=True)
    assert outcome.units_played == 0 and outcome.units_from_store > 0
    assert (run_dir / "results.json").read_bytes() == reference
    assert "resumed with" in (run_dir / "run.log").read_text()


def test_a_resume_refuses_a_changed_config(stopped_run: tuple[Path, Path, Path]) -> None:
    run_dir, config, _ = stopped_run
    config.write_text(config.read_text().replace('name = "runner test"', 'name = "renamed"'))
    with pytest.raises(
        RunError, match=r"config .*event\.toml changed since the run started \(different: name\)"
    ):
        resume_run(run_dir, SERIAL, quiet=True)
    # Comments and spacing are not changes.
    config.write_text(
        "# the same event\n"
        + config.read_text().replace('name = "renamed"', 'name   =   "runner test"')
    )
    resume_run(run_dir, SERIAL, quiet=True)


def test_a_resume_refuses_a_changed_bot(stopped_run: tuple[Path, Path, Path]) -> None:
    run_dir, _, bot = stopped_run
    bot.write_text(bot.read_text().replace("% 3 == 0", "% 4 == 0"))
    with pytest.raises(RunError, match=r"the bot .*flaky\.py:Flaky \(played by flaky\) changed"):
        resume_run(run_dir, SERIAL, quiet=True)
    bot.unlink()
    with pytest.raises(RunError, match=r"flaky\.py:Flaky \(played by flaky\) cannot be found"):
        resume_run(run_dir, SERIAL, quiet=True)


def test_a_resume_refuses_another_code_version_and_lists_every_problem(
    stopped_run: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, config, bot = stopped_run
    with RunStore.open(run_dir) as store:
        store.set_meta("code_version", "0" * 64)
    config.write_text(config.read_text().replace("count = 7", "count = 9"))
    bot.write_text(bot.read_text() + "\n")
    assert main(["resume", str(run_dir), "--executor", "serial"]) == 2
    error = capsys.readouterr().err
    assert f"cannot resume {run_dir}:" in error
    assert (
        "dp-arena source changed since the run started"
        " (code version 000000000000 then, 111111111111 now)" in error
    )
    assert "different: entrants" in error
    assert "flaky.py:Flaky (played by flaky) changed" in error
    assert not (run_dir / "results.json").exists()


def test_run_and_resume_refuse_the_wrong_directory(
    stopped_run: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, config, _ = stopped_run
    assert main(["run", str(config), "--run-dir", str(run_dir), "--executor", "serial"]) == 2
    assert f"dp-arena resume {run_dir}" in capsys.readouterr().err
    assert main(["resume", str(tmp_path / "nothing"), "--executor", "serial"]) == 2
    assert "is not a run directory with a checkpoint store" in capsys.readouterr().err
    assert main(["resume", str(run_dir), "--executor", "serial", "--quiet"]) == 0
    finished = (run_dir / "results.json").read_bytes()
    capsys.readouterr()
    # Resuming a finished run changes nothing.
    assert main(["resume", str(run_dir), "--executor", "serial"]) == 0
    assert "has already finished" in capsys.readouterr().out
    assert (run_dir / "results.json").read_bytes() == finished


def test_the_kill_and_resume_processes_run_the_snapshot(event: Event) -> None:
    found = subprocess.run(
        [sys.executable, "-c", "import dp_arena; print(dp_arena.__file__)"],
        cwd=cli_folder(event.environment),
        env=cli_environment(event.environment),
        capture_output=True,
        text=True,
        check=True,
    )
    assert found.stdout.strip() == str(
        Path(event.environment["PYTHONPATH"]) / "dp_arena" / "__init__.py"
    )
