"""An executor that has only ``run`` plays a run through the checkpoint all the same:
``JsonExecutor.run_json``'s default encodes each result as it arrives, and the driver
writes the hand histories itself, to the bytes of the plain event driver."""

from __future__ import annotations

from pathlib import Path

import pytest

from dp_arena.runner import ExecutorOptions, start_run
from dp_arena.runner.checkpoint import JsonExecutor
from dp_arena.runner.executors import SerialRun
from dp_arena.tournament.loading import load_config
from tests.runner.helpers import reference_results, write_config


class _RunOnly(SerialRun):
    """The serial run without its own run_json: the protocol's default stands in."""

    run_json = JsonExecutor.run_json


def test_an_executor_with_only_run_gives_the_same_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(tmp_path / "event", players=12, seed=3)
    reference = reference_results(config, tmp_path / "reference")
    monkeypatch.setattr("dp_arena.runner.launch.make_executor", lambda options, logs: _RunOnly())
    start_run(load_config(config), tmp_path / "run", ExecutorOptions("serial"), quiet=True)
    assert (tmp_path / "run" / "results.json").read_bytes() == reference
    histories = sorted((tmp_path / "run" / "histories").iterdir())
    assert histories and all(
        path.read_bytes() == (tmp_path / "reference" / "histories" / path.name).read_bytes()
        for path in histories
    )
