"""A serial run records each hand history as its hands finish, as a Ray worker does,
instead of replaying every deal afterwards to write it: the bytes are those the plain
event driver writes by replaying, and ``verify``, which replays them all, agrees."""

from __future__ import annotations

from pathlib import Path

import pytest

from dp_arena.runner import ExecutorOptions, start_run
from dp_arena.runner.verify import verify_run
from dp_arena.tournament.loading import load_config
from tests.runner.helpers import reference_results, write_config


def test_a_serial_run_writes_the_replayed_histories_without_replaying(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(tmp_path / "event", players=24, seed=5)
    reference = reference_results(config, tmp_path / "reference")  # histories by replay

    def not_here(*args: object) -> str:
        raise AssertionError("the driver replayed the hands to write a hand history")

    monkeypatch.setattr("dp_arena.tournament.event.session_history_text", not_here)
    start_run(load_config(config), tmp_path / "run", ExecutorOptions("serial"), quiet=True)
    assert (tmp_path / "run" / "results.json").read_bytes() == reference
    replayed = tmp_path / "reference" / "histories"
    written = sorted((tmp_path / "run" / "histories").iterdir())
    assert written and [path.name for path in written] == sorted(
        path.name for path in replayed.iterdir()
    )
    assert all(path.read_bytes() == (replayed / path.name).read_bytes() for path in written)
    monkeypatch.undo()  # verify replays every hand itself
    assert verify_run(tmp_path / "run").passed
