"""What the event driver holds of a session while it is played: once a table-session's
result has arrived (committed to the store, its hand history written), the driver keeps
only what is scored of it, so a session of many tables is never held with every deal's
cards and actions until its last table is in. Checked on the serial executor a run
plays on, which hands each result on as Ray's does (with its stored form and the hand
history its worker wrote), against the plain serial driver's results, byte for byte."""

from __future__ import annotations

import gc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dp_arena.results import DealRecord
from dp_arena.rundir.store import RunStore
from dp_arena.runner.checkpoint import CheckpointExecutor, ResultSink
from dp_arena.runner.executors import SerialRun
from dp_arena.runner.fingerprint import bot_codes
from dp_arena.tournament.event import run_event
from dp_arena.tournament.loading import load_config
from dp_arena.units import TableUnit

from .helpers import reference_results, write_config


def _deal_records_alive() -> int:
    """Deal records alive in this process, the collector's frozen ones included (the
    driver freezes what it holds as it goes)."""
    frozen = gc.get_freeze_count()
    gc.unfreeze()
    try:
        gc.collect()
        return sum(1 for item in gc.get_objects() if type(item) is DealRecord)
    finally:
        if frozen:
            gc.freeze()


class _Looking(SerialRun):
    """The serial executor as a run plays on it (each result handed on with its stored
    form and its hand history, as a Ray worker's are), counting the deal records alive
    once the driver has taken each result in."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[tuple[int, int, int]] = []  # units, deals, most records alive

    def run_json(
        self,
        units: Sequence[TableUnit],
        on_result: ResultSink | None = None,
        *,
        histories: bool = False,
    ) -> Sequence[dict[str, Any]]:
        deals = most = 0

        def told(index: int, data: dict[str, Any], text: str | None, stored: bytes | None) -> None:
            nonlocal deals, most
            deals += len(data["deals"])
            if on_result is not None:
                on_result(index, data, text, stored)
            del data
            most = max(most, _deal_records_alive())

        answer = super().run_json(units, told, histories=histories)
        self.batches.append((len(units), deals, most))
        return answer


def test_a_session_is_not_held_with_its_cards_and_actions(tmp_path: Path) -> None:
    config_path = write_config(tmp_path, players=120, seed=7)
    config = load_config(config_path)
    executor = _Looking()
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    with RunStore.create(run_dir, {"purpose": "test"}) as store:
        checkpoint = CheckpointExecutor(executor, store, histories=True)
        run_event(
            config,
            run_dir,
            executor=checkpoint,
            code=bot_codes(config.entrants),
            written_histories=checkpoint.history_of,
        )
    expected = reference_results(config_path, tmp_path / "reference")
    assert (run_dir / "results.json").read_bytes() == expected
    reference = tmp_path / "reference" / "histories"
    histories = sorted(path.name for path in (run_dir / "histories").iterdir())
    assert histories == sorted(path.name for path in reference.iterdir())
    for name in histories:
        assert (run_dir / "histories" / name).read_bytes() == (reference / name).read_bytes()
    units, deals, most = max(executor.batches)  # the biggest session
    assert units >= 20 and deals >= 20 * 6
    # Holding the session's results whole would keep every one of its deals' records to
    # its last table; what is left alive is at most one table-session's worth.
    assert most <= deals // units + 1, executor.batches
