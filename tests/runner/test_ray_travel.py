"""Bots travel with the work: a Ray cluster whose only worker node cannot see the
driver's bot folders plays an event of a bot folder, a lone file and two registry bots
(a class, a command line), sandboxed and in-process, and gives byte for byte the serial
run's results.

The cluster is started for the module on this machine: a head with no CPUs (so no task
runs beside the driver's files) and one node with 2 CPUs started in a mount namespace of
its own in which an empty file system is mounted over the folder that holds the bots
and the registry, with a bot cache of its own (``DP_ARENA_BOT_CACHE``). Both are stopped
by signalling the processes this module started: never ``ray stop``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .helpers import cli, cli_environment, write_config
from .travelling_bots import entrants, write_bots

RAY = Path(sys.executable).with_name("ray")

pytestmark = pytest.mark.skipif(
    shutil.which("unshare") is None or os.geteuid() != 0,
    reason="a node in a mount namespace of its own needs unshare, as root",
)


@dataclass(frozen=True)
class Cluster:
    address: str
    bots: dict[str, str]  # name -> spec, under a folder the worker node cannot see
    hidden: Path
    cache: Path  # the worker node's bot cache


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("", 0))
        return int(probe.getsockname()[1])


def _start(command: list[str], log: Path, environment: dict[str, str]) -> subprocess.Popen[bytes]:
    with log.open("wb") as output:
        return subprocess.Popen(
            command,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=environment,
            start_new_session=True,
        )


def _wait_for(log: Path, process: subprocess.Popen[bytes], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if "Ray runtime started" in log.read_text(errors="replace"):
            return
        if process.poll() is not None:
            break
        time.sleep(0.2)
    raise RuntimeError(f"a Ray node did not start:\n{log.read_text(errors='replace')[-3000:]}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=30)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, ray_token: Path) -> Iterator[Cluster]:
    folder = tmp_path_factory.mktemp("travel")
    hidden = folder / "bots"
    bots = write_bots(hidden)
    # A short folder: Ray's socket paths inside it must fit in 107 bytes.
    temp_dir = Path(tempfile.mkdtemp(prefix="dpt", dir="/tmp"))
    environment = cli_environment({"RAY_AUTH_MODE": "token"})
    port = _free_port()
    address = f"127.0.0.1:{port}"
    head = _start(
        [
            str(RAY),
            "start",
            "--head",
            "--block",
            f"--port={port}",
            "--num-cpus=0",
            "--include-dashboard=false",
            "--disable-usage-stats",
            f"--dashboard-agent-listen-port={_free_port()}",
            f"--temp-dir={temp_dir}",
        ],
        temp_dir / "head.log",
        environment,
    )
    node = None
    cache = temp_dir / "node-cache"
    try:
        _wait_for(temp_dir / "head.log", head, 180)
        start_node = shlex.join(
            [
                str(RAY),
                "start",
                "--block",
                f"--address={address}",
                "--num-cpus=2",
                "--disable-usage-stats",
                f"--dashboard-agent-listen-port={_free_port()}",
            ]
        )
        hide = f"mount -t tmpfs -o size=1m,mode=0755 dp-arena-hidden {shlex.quote(str(hidden))}"
        node = _start(
            [
                "unshare",
                "--mount",
                "--propagation",
                "private",
                "sh",
                "-c",
                f"{hide} && exec {start_node}",
            ],
            temp_dir / "node.log",
            {**environment, "DP_ARENA_BOT_CACHE": str(cache)},
        )
        _wait_for(temp_dir / "node.log", node, 180)
        # The node is in a mount namespace of its own, where the bots' folder is empty.
        assert _mount_namespace(node.pid) != _mount_namespace(os.getpid())
        yield Cluster(address, bots, hidden, cache)
    finally:
        for process in (node, head):
            if process is not None:
                _stop(process)
        shutil.rmtree(temp_dir, ignore_errors=True)


def _mount_namespace(pid: int) -> str:
    return os.readlink(f"/proc/{pid}/ns/mnt")


@pytest.mark.parametrize("trusted", [False, True], ids=["sandboxed", "in-process"])
def test_a_node_without_the_bots_files_plays_them_from_copies_sent_through_ray(
    cluster: Cluster, tmp_path: Path, trusted: bool
) -> None:
    # Both runs in processes of their own: this one keeps no seat, template or spare.
    config = write_config(
        tmp_path, players=14, seed=31, entrants=entrants(cluster.bots, trusted=trusted)
    )
    serial = cli("run", str(config), "--run-dir", str(tmp_path / "serial"), "--executor", "serial")
    assert serial.returncode == 0, serial.stderr[-3000:]
    expected = (tmp_path / "serial" / "results.json").read_bytes()
    assert b"load_error" not in expected  # the serial run seated every bot
    run_dir = tmp_path / "run"
    finished = cli(
        "run",
        str(config),
        "--run-dir",
        str(run_dir),
        "--ray-address",
        cluster.address,
        "--workers",
        "2",
        "--quiet",
        extra_env={"RAY_AUTH_MODE": "token"},
    )
    assert finished.returncode == 0, finished.stderr[-3000:]
    assert (run_dir / "results.json").read_bytes() == expected
    # Every worker that played found none of the bots at the driver's paths (it copies
    # only then), and took copies of all four, checked and kept in its node's cache.
    runner = json.loads((run_dir / "runner.json").read_text())
    workers, copied_by = runner["worker_peak_rss_kib"], runner["bots_copied_to_workers"]
    assert workers and set(copied_by) == set(workers)
    assert set().union(*map(set, copied_by.values())) == set(cluster.bots.values())
    assert len([path for path in cluster.cache.iterdir() if not path.name.startswith(".")]) == 4
