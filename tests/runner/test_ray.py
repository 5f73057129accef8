"""The Ray executor gives byte for byte the results of the plain serial event driver:
with 1 and 2 workers on a cluster joined by address, with a worker killed in the middle
of a task, through ``dp-arena run --ray-address auto``, and on the embedded Ray that
``dp-arena run`` starts by default. The embedded Ray dies with a driver killed with
SIGKILL. The competition server's ladder joins the same cluster by address.

One Ray head is started for the module (``ray start --head --block`` in its own
session, on a free port, with its own temporary folder so nothing else on the machine
finds it), and stopped by signalling the processes this module started: never
``ray stop``, which would stop every Ray on the machine.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dp_arena.rundir.store import RunStore
from dp_arena.runner import ExecutorOptions, resume_run, start_run
from dp_arena.runner.launch import stored_code
from dp_arena.runner.ray_executor import RayExecutor
from dp_arena.tournament.loading import load_config

from .helpers import (
    BOTS,
    cli,
    cli_command,
    cli_environment,
    cli_folder,
    live_processes_mentioning,
    live_processes_of_a_run,
    reference_results,
    stored_units,
    write_config,
)

RAY = Path(sys.executable).with_name("ray")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("", 0))
        return int(probe.getsockname()[1])


def _wait_for(log: Path, text: str, process: subprocess.Popen[bytes], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if text in log.read_text(errors="replace"):
            return
        if process.poll() is not None:
            break
        time.sleep(0.2)
    raise RuntimeError(f"the Ray head did not start:\n{log.read_text(errors='replace')[-3000:]}")


@pytest.fixture(scope="module")
def ray_head(ray_token: Path) -> Iterator[str]:
    """The address (``host:port``) of a Ray head with 2 CPUs started for this module."""
    port = _free_port()
    # A short folder: Ray's socket paths inside it must fit in 107 bytes.
    temp_dir = Path(tempfile.mkdtemp(prefix="dpr", dir="/tmp"))
    log = temp_dir / "head.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [
                str(RAY),
                "start",
                "--head",
                "--block",
                f"--port={port}",
                "--num-cpus=2",
                "--include-dashboard=false",
                "--disable-usage-stats",
                f"--temp-dir={temp_dir}",
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
            env=cli_environment({"RAY_AUTH_MODE": "token"}),
            start_new_session=True,
        )
    try:
        _wait_for(log, "Ray runtime started", process, 180)
        yield f"127.0.0.1:{port}"
    finally:
        # `ray start --block` stops what it started on SIGTERM; then anything left in
        # its session goes with SIGKILL.
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        shutil.rmtree(temp_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def event(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A 40-player regular tournament and the serial driver's results.json of it."""
    folder = tmp_path_factory.mktemp("event")
    config = write_config(folder, players=40, seed=23)
    return config, reference_results(config, folder / "reference")


@pytest.mark.parametrize("workers", [1, 2])
def test_ray_on_a_cluster_gives_the_serial_results(
    ray_head: str,
    event: tuple[Path, bytes],
    tmp_path: Path,
    workers: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config, reference = event

    def not_here(*args: object) -> str:
        raise AssertionError("the driver wrote a hand history: the workers should have")

    monkeypatch.setattr("dp_arena.tournament.event.session_history_text", not_here)
    outcome = start_run(
        load_config(config), tmp_path / "run", ExecutorOptions("ray", workers, ray_head), quiet=True
    )
    assert (tmp_path / "run" / "results.json").read_bytes() == reference
    # The workers wrote the hand histories: the very bytes the serial driver wrote.
    serial = config.parent / "reference" / "histories"
    written = sorted((tmp_path / "run" / "histories").iterdir())
    assert [path.name for path in written] == sorted(path.name for path in serial.iterdir())
    assert all(path.read_bytes() == (serial / path.name).read_bytes() for path in written)
    assert outcome.executor == f"Ray cluster at {ray_head} ({workers} workers)"
    assert outcome.units_played > 0 and outcome.worker_peaks_kib
    if workers == 1:
        # One task in flight at a time: one worker process did the work, or a second one
        # when Ray replaced an idle worker on a loaded machine; never one per task.
        assert 1 <= len(outcome.worker_peaks_kib) <= 2 < outcome.units_played


def test_a_worker_killed_in_the_middle_of_a_task_is_retried(ray_head: str, tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    shutil.copy(BOTS / "worker_killer.py", bots / "worker_killer.py")
    marker = bots / "killed.marker"
    config = write_config(
        tmp_path,
        players=12,
        seed=29,
        entrants='[[entrants]]\nname = "killer"\nagent = "bots/worker_killer.py:WorkerKiller"\n'
        "trusted = true\n",
    )
    outcome = start_run(
        load_config(config), tmp_path / "run", ExecutorOptions("ray", 2, ray_head), quiet=True
    )
    victim = int(marker.read_text())  # the worker that killed itself, mid-table-session
    assert victim != os.getpid()
    # The reference: with the marker in place the bot only calls and checks. (The marker
    # changed the bot's folder, so its content hash is the one the run recorded.)
    with RunStore.open(tmp_path / "run") as store:
        code = stored_code(store)
    reference = reference_results(config, tmp_path / "reference", code)
    assert (tmp_path / "run" / "results.json").read_bytes() == reference
    assert outcome.units_played > 0


def test_dp_arena_run_joins_a_cluster_with_ray_address_auto(
    ray_head: str, event: tuple[Path, bytes], tmp_path: Path
) -> None:
    config, reference = event
    finished = cli(
        "run",
        str(config),
        "--run-dir",
        str(tmp_path / "run"),
        "--ray-address",
        "auto",
        "--quiet",
        extra_env={"RAY_ADDRESS": ray_head, "RAY_AUTH_MODE": "token"},
    )
    assert finished.returncode == 0, finished.stderr[-3000:]
    assert "on Ray cluster at auto (2 workers)" in finished.stdout
    assert (tmp_path / "run" / "results.json").read_bytes() == reference


def test_the_embedded_ray_gives_the_serial_results_and_leaves_nothing_running(
    event: tuple[Path, bytes], tmp_path: Path
) -> None:
    config, reference = event
    run_dir = tmp_path / "run"
    finished = cli(
        "run",
        str(config),
        "--run-dir",
        str(run_dir),
        "--executor",
        "ray",
        "--workers",
        "2",
        "--quiet",
    )
    assert finished.returncode == 0, finished.stderr[-3000:]
    assert "on Ray (embedded, 2 workers) after a" in finished.stdout
    assert finished.stderr == ""  # quiet: no progress, no Ray chatter
    assert (run_dir / "results.json").read_bytes() == reference
    log = (run_dir / "run.log").read_text()
    session = next(
        part
        for line in log.splitlines()
        if "Ray's logs:" in line
        for part in Path(line.split("Ray's logs: ")[1].split(" ")[0]).parts
        if part.startswith("session_")
    )
    assert (run_dir / "logs" / "ray").is_dir()
    deadline = time.monotonic() + 30
    while live_processes_mentioning(session) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert live_processes_mentioning(session) == []


def _ray_session(run_dir: Path) -> Path:
    """The embedded Ray's session folder, as ``run.log`` names it while the run goes on."""
    line = next(
        line for line in (run_dir / "run.log").read_text().splitlines() if "Ray's logs:" in line
    )
    return Path(line.split("Ray's logs: ")[1].split(" ")[0]).parent


def test_the_embedded_ray_dies_with_a_driver_killed_with_sigkill(tmp_path: Path) -> None:
    """Killed once Ray's workers have stored their first table-session: a few seconds
    later no process of that run is left. Its processes are those that carry a variable
    only this test's ``dp-arena run`` was given, or hold a file of its Ray session open."""
    config = write_config(tmp_path, players=600, seed=37)
    run_dir = tmp_path / "run"
    variable, value = "DP_ARENA_TEST_RUN", secrets.token_hex(8)
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
        cwd=cli_folder(),
        env=cli_environment({variable: value}),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 240
        while stored_units(run_dir) < 1 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        session = _ray_session(run_dir)
        running = live_processes_of_a_run(variable, value, session)
        process.send_signal(signal.SIGKILL)
    finally:
        _, error = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL, error.decode()[-3000:]
    # The instance was there: the driver, Ray's servers, its agents and workers.
    assert sum(name.startswith("ray::") for name in running.values()) >= 2, running
    assert len(running) >= 6, running
    deadline = time.monotonic() + 8  # generous: Ray's workers take 1-3 s to notice
    while live_processes_of_a_run(variable, value, session) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert live_processes_of_a_run(variable, value, session) == {}, running
    # A killed run keeps its Ray folder for its logs: this test has no more use for it.
    shutil.rmtree(session.parent, ignore_errors=True)


def test_batches_are_several_per_worker_and_bounded() -> None:
    executor = RayExecutor(workers=2)
    executor.capacity = 2
    assert [executor.batch_size(units) for units in (1, 16, 17, 170, 5000)] == [1, 1, 2, 11, 32]


def test_results_from_another_dp_arena_are_refused() -> None:
    from dp_arena.errors import RunError
    from dp_arena.runner.fingerprint import package_folder

    executor = RayExecutor()
    executor.code_version = "a" * 64
    here = {"host": socket.gethostname(), "package": package_folder(), "pid": 7}
    # The very files of this driver (edited or not): the same code.
    executor.check_worker({**here, "code_version": "b" * 64})
    # Another machine with the same source: fine; with another source: refused.
    executor.check_worker({**here, "host": "node-2", "code_version": "a" * 64})
    with pytest.raises(
        RunError,
        match=r"worker node-2:7 runs a different dp-arena source"
        r" \(code version bbbbbbbbbbbb, this driver aaaaaaaaaaaa\)",
    ):
        executor.check_worker({**here, "host": "node-2", "code_version": "b" * 64})
    with pytest.raises(RunError, match="install the same dp-arena on every node"):
        executor.check_worker({**here, "package": "/elsewhere/dp_arena", "code_version": "b" * 64})


def test_a_serial_run_resumes_on_ray(
    ray_head: str, tmp_path: Path, fixed_code_version: None
) -> None:
    """The store does not care which executor filled it: a serial run whose last
    table-sessions are missing (as if killed) is finished on the cluster."""
    config = write_config(tmp_path, players=16, seed=31)
    reference = reference_results(config, tmp_path / "reference")
    run_dir = tmp_path / "run"
    start_run(load_config(config), run_dir, ExecutorOptions("serial"), quiet=True)
    (run_dir / "results.json").unlink()
    with contextlib.closing(sqlite3.connect(run_dir / "store.sqlite")) as connection, connection:
        total = connection.execute("SELECT COUNT(*) FROM units").fetchone()[0]
        connection.execute("DELETE FROM units WHERE session >= 2")
        kept = connection.execute("SELECT COUNT(*) FROM units").fetchone()[0]
    outcome = resume_run(run_dir, ExecutorOptions("ray", 2, ray_head), quiet=True)
    assert (outcome.units_from_store, outcome.units_played) == (kept, total - kept)
    assert (run_dir / "results.json").read_bytes() == reference


def test_an_address_where_nothing_listens_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dp_arena.cli import main

    config = write_config(tmp_path, players=8)
    port = _free_port()  # free a moment ago: nothing listens there
    run_dir = tmp_path / "run"
    assert (
        main(["run", str(config), "--run-dir", str(run_dir), "--ray-address", f"127.0.0.1:{port}"])
        == 2
    )
    assert f"nothing answers at 127.0.0.1:{port}" in capsys.readouterr().err
    assert main(["run", str(config), "--run-dir", str(run_dir), "--ray-address", "head-node"]) == 2
    assert "is not auto, HOST:PORT or ray://HOST:PORT" in capsys.readouterr().err
    assert not run_dir.exists()


def test_the_servers_ladder_plays_on_a_cluster_joined_by_address(
    ray_head: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``dp-arena serve --executor ray --ray-address ADDR``: the ladder's tables go to the
    cluster, and its matches verify from their revealed keys."""
    import httpx

    from dp_arena.server.matches import verify_match
    from tests.server.helpers import CALLER, FOLDER, Server, add_author, bot_folder, zip_folder

    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    data = tmp_path / "data"
    tokens = [add_author(db, name, data) for name in ("alice", "bob")]
    server = Server(
        db,
        data,
        tmp_path / "server.log",
        *("--executor", "ray", "--ray-address", ray_head, "--ladder-deals", "6"),
        *("--check-states", "20", "--resamples", "200"),
    )
    server.start()
    try:
        for token, (name, source, cls) in zip(
            tokens, [("calla", CALLER, "Caller"), ("folda", FOLDER, "Folder")], strict=True
        ):
            answer = httpx.post(
                f"{server.url}/api/bots",
                content=zip_folder(bot_folder(tmp_path / "bots", name, source, cls)),
                headers={"Authorization": f"Bearer {token}", "Content-Type": "application/zip"},
                timeout=30,
            )
            assert answer.status_code == 202, answer.text
        found = server.wait_for(
            "/api/matches",
            lambda matches: any(m["status"] == "finished" for m in matches["matches"]),
            timeout=240,
            step=0.5,
        )
        first = next(match for match in found["matches"] if match["status"] == "finished")
        assert verify_match(server.get(f"/api/matches/{first['id']}").json()) == []
        assert f"Ray cluster at {ray_head}" in server.log()
    finally:
        server.stop()


@pytest.mark.parametrize("channel", ["OwnPages", "RuntimeLocks"])
def test_a_sandboxed_team_on_ray_gains_nothing_over_the_same_bots_without_a_channel(
    ray_head: str, channel: str, tmp_path: Path
) -> None:
    """Four entrants sharing the colluding bot's code, their tables played at once by two
    workers (so a lock one copy holds could be seen by another while it plays), take home
    what the same bots with no channel take serially."""
    from .colluders import outcome, team_event

    control = outcome(
        team_event(tmp_path / "control", "NoChannel"),
        tmp_path / "serial",
        ExecutorOptions("serial"),
    )
    team = team_event(tmp_path / "team", channel)
    assert outcome(team, tmp_path / "ray", ExecutorOptions("ray", 2, ray_head)) == control
