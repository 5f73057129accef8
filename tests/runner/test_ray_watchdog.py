"""The Ray watchdog's sweep: it kills what still uses an instance's folder, whatever the
number of descriptors the sweeping process holds."""

from __future__ import annotations

import os
import resource
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from dp_arena.runner.ray_watchdog import processes_using, sweep


@pytest.fixture
def over_1024_descriptors() -> Iterator[None]:
    """This process holds more than 1,024 descriptors (``select`` refuses any numbered
    from 1,024 on), for the length of the test."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"the hard limit of open files here is {hard}, under 1,200")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        yield
    finally:
        for descriptor in held:
            os.close(descriptor)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_sweep_kills_what_uses_the_folder_past_1024_descriptors(
    tmp_path: Path, over_1024_descriptors: None
) -> None:
    with (tmp_path / "worker.log").open("w") as log:
        leftover = subprocess.Popen(["sleep", "120"], stdout=log)
    try:
        assert processes_using(tmp_path, excluding=(os.getpid(),)) == [leftover.pid]
        assert sweep(tmp_path, excluding=(os.getpid(),), seconds=10) >= 1
        assert leftover.wait(timeout=10) == -9
    finally:
        leftover.kill()
        leftover.wait()
