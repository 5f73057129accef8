"""One process at a time runs a run directory: a second ``dp-arena resume`` (or a ``run``
into it) while one runs is refused naming the process, and a process killed with
SIGKILL leaves no lock behind."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dp_arena.errors import RunError
from dp_arena.rundir.lock import LOCK_FILE, RunLock, refuse_if_running

from .helpers import (
    BOTS,
    cli,
    cli_command,
    cli_environment,
    cli_folder,
    snapshot,
    stored_units,
    write_config,
)

HOLDER = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from dp_arena.rundir.lock import RunLock\n"
    "RunLock.acquire(Path(sys.argv[1]))\n"
    "print('locked', flush=True)\n"
    "time.sleep(600)\n"
)


def _hold_in_another_process(run_dir: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(run_dir)],
        stdout=subprocess.PIPE,
        text=True,
        env=cli_environment(),
    )
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    return holder


def test_a_second_lock_is_refused_naming_the_holder_until_it_is_released(
    tmp_path: Path,
) -> None:
    lock = RunLock.acquire(tmp_path)
    with pytest.raises(
        RunError,
        match=rf"^{tmp_path} is being run by process {os.getpid()} on"
        rf" {socket.gethostname()} since 20\d\d-\d\d-\d\d \d\d:\d\d:\d\d; wait for it",
    ):
        RunLock.acquire(tmp_path)
    with pytest.raises(RunError, match=f"process {os.getpid()}"):
        refuse_if_running(tmp_path)
    lock.release()
    lock.release()  # twice is nothing
    assert (tmp_path / LOCK_FILE).read_text() == ""  # the file stays, naming no one
    refuse_if_running(tmp_path)
    with RunLock.acquire(tmp_path) as again:
        assert again.held
    assert not again.held


def test_a_directory_never_run_is_not_being_run(tmp_path: Path) -> None:
    refuse_if_running(tmp_path / "nothing")
    refuse_if_running(tmp_path)
    assert not (tmp_path / LOCK_FILE).exists()  # checking creates nothing


def test_a_lock_holder_killed_with_sigkill_leaves_no_lock(tmp_path: Path) -> None:
    holder = _hold_in_another_process(tmp_path)
    try:
        with pytest.raises(RunError, match=f"is being run by process {holder.pid} on"):
            RunLock.acquire(tmp_path)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.communicate(timeout=30)
    RunLock.acquire(tmp_path).release()


def test_processes_started_while_holding_the_lock_do_not_keep_it(tmp_path: Path) -> None:
    lock = RunLock.acquire(tmp_path)
    # A child that inherits every descriptor it may (as a bot or a Ray process could).
    child = subprocess.Popen(["sleep", "60"], close_fds=False)
    try:
        lock.release()
        RunLock.acquire(tmp_path).release()
    finally:
        child.kill()
        child.wait(timeout=30)


def test_a_second_resume_or_run_of_a_running_directory_is_refused(tmp_path: Path) -> None:
    """A real ``dp-arena run`` is caught while it plays; ``resume`` and ``run`` into its
    directory are refused naming its process, and once it is killed with SIGKILL the run
    resumes to its end."""
    environment = snapshot(tmp_path / "code")
    folder = tmp_path / "event"
    (folder / "bots").mkdir(parents=True)
    shutil.copy(BOTS / "slow.py", folder / "bots" / "slow.py")
    config = write_config(
        folder,
        players=8,
        entrants='[[entrants]]\nname = "slow"\nagent = "bots/slow.py:Slow"\ntrusted = true\n',
    )
    run_dir = tmp_path / "run"
    first = subprocess.Popen(
        cli_command("run", str(config), "--run-dir", str(run_dir), "--executor", "serial"),
        cwd=cli_folder(environment),
        env=cli_environment(environment),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while stored_units(run_dir) < 1 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert first.poll() is None, "the run ended before it could be caught"
        busy = f"{run_dir} is being run by process {first.pid} on {socket.gethostname()} since "
        for command in (
            ("resume", str(run_dir), "--executor", "serial"),
            ("run", str(config), "--run-dir", str(run_dir), "--executor", "serial"),
        ):
            refused = cli(*command, extra_env=environment)
            assert refused.returncode == 2, refused.stderr
            assert refused.stderr.startswith(f"dp-arena {command[0]}: {busy}"), refused.stderr
        assert first.poll() is None  # the first run went on
    finally:
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=60)
    assert not (run_dir / "results.json").exists()
    resumed = cli(
        "resume",
        str(run_dir),
        "--executor",
        "serial",
        "--quiet",
        extra_env={**environment, "SLOW_BOT_SECONDS": "0"},
    )
    assert resumed.returncode == 0, resumed.stderr
    assert (run_dir / "results.json").is_file()


def test_a_start_that_loses_the_race_writes_no_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two starts into one new directory can both pass the first check; the one that does
    not get the lock must not overwrite the other's key or commitment."""
    from dp_arena.runner import ExecutorOptions, start_run
    from dp_arena.tournament.loading import parse_config

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    monkeypatch.setattr("dp_arena.runner.launch.refuse_if_running", lambda run_dir: None)
    config = parse_config(
        {"event": {"name": "race", "format": "regular"}, "field": {"count": 8, "from": ["random"]}}
    )
    holder = _hold_in_another_process(run_dir)
    try:
        with pytest.raises(RunError, match=f"is being run by process {holder.pid}"):
            start_run(config, run_dir, ExecutorOptions("serial"), quiet=True)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.communicate(timeout=30)
    assert sorted(path.name for path in run_dir.iterdir()) == [LOCK_FILE]
