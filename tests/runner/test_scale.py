"""Slow checks at scale (``make test-slow``): a 1,000-bot event plays to the end with its
checkpoints, and an embedded-Ray run killed with SIGKILL leaves no Ray process behind
and resumes to the serial driver's results. The full figures are ``make bench-scale``."""

from __future__ import annotations

import json
import secrets
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from dp_arena.runner import ExecutorOptions, start_run
from dp_arena.tournament.loading import load_config

from .helpers import (
    cli,
    cli_command,
    cli_environment,
    cli_folder,
    live_processes_of_a_run,
    snapshot,
    snapshot_reference,
    stored_units,
    write_config,
)

pytestmark = pytest.mark.slow

DEFAULT_FIELD = ("random", "calling-station", "aggressive", "tag", "equity")


def test_a_thousand_built_in_bots_play_to_the_end(tmp_path: Path, fixed_code_version: None) -> None:
    config = write_config(tmp_path, players=1000, pool=DEFAULT_FIELD)
    run_dir = tmp_path / "run"
    outcome = start_run(load_config(config), run_dir, ExecutorOptions("serial"), quiet=True)
    results = json.loads((run_dir / "results.json").read_text())
    assert len(results["standings"]) == 1000
    assert results["prizes"]["paid_cents"] == results["prizes"]["pool_cents"] == 1000 * 1000
    # Every table-session is in the store once, and has its hand history.
    assert stored_units(run_dir) == len(results["histories"]) == outcome.units_played
    assert outcome.deals_played == json.loads((run_dir / "timing.json").read_text())["deals_played"]


def test_an_embedded_ray_run_killed_with_sigkill_resumes_to_the_serial_results(
    tmp_path: Path,
) -> None:
    environment = snapshot(tmp_path / "code")
    variable, value = "DP_ARENA_TEST_RUN", secrets.token_hex(8)
    config = write_config(tmp_path, players=300, seed=41)
    reference = snapshot_reference(config, tmp_path / "reference", environment)
    run_dir = tmp_path / "run"
    process = subprocess.Popen(
        cli_command(
            "run",
            str(config),
            "--run-dir",
            str(run_dir),
            "--executor",
            "ray",
            "--workers",
            "2",
            "--quiet",
        ),
        cwd=cli_folder(environment),
        env=cli_environment({**environment, variable: value}),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 300
        while stored_units(run_dir) < 60 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL
    stored = stored_units(run_dir)
    assert stored >= 60 and not (run_dir / "results.json").exists()
    log = (run_dir / "run.log").read_text()
    session = Path(log.split("Ray's logs: ")[1].split("/logs")[0])
    # The embedded Ray shares the driver's fate, within seconds.
    deadline = time.monotonic() + 8
    while live_processes_of_a_run(variable, value, session) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert live_processes_of_a_run(variable, value, session) == {}
    shutil.rmtree(session.parent, ignore_errors=True)  # the killed run's Ray folder
    resumed = cli("resume", str(run_dir), "--workers", "2", "--quiet", extra_env=environment)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert json.loads((run_dir / "runner.json").read_text())["units_from_store"] == stored
    assert (run_dir / "results.json").read_bytes() == reference
