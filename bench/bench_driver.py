"""Driver capacity: how many table-deals a second the one coordinating process can take
in, when it does nothing but what it does for results that come back from the workers.

A regular tournament of built-in bots is played once; then its table-sessions' results
are handed to a fresh run, in the order and form a Ray executor hands them over (JSON
data, each with what the worker made of it), through the same checkpoint store,
event driver and run directory as a real run. Nothing is played: the time it takes is
the driver's alone. Its ``results.json`` must be the played run's, byte for byte.
``BENCH_DRIVER_BOTS`` (1000) sets the field; the replay runs 3 times, the fastest
counts. The goal: at least 5,000 table-deals a second.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dp_arena.rundir.store import RunStore, stored_data
from dp_arena.runner.checkpoint import CheckpointExecutor, ResultSink
from dp_arena.runner.fingerprint import unit_id
from dp_arena.runner.launch import ExecutorOptions, start_run, stored_code
from dp_arena.tournament.event import run_event
from dp_arena.tournament.loading import load_config
from dp_arena.units import TableUnit

GOAL = 5000
ROUNDS = 3


class Replay:
    """An executor that plays nothing: it answers each unit with what a worker returned
    for it in the played run (the result in its stored form), and, if asked, the hand
    history it wrote."""

    def __init__(self, answers: dict[str, bytes], histories: dict[str, str] | None) -> None:
        self.answers = answers
        self.histories = histories

    def run_json(
        self,
        units: Sequence[TableUnit],
        on_result: ResultSink | None = None,
        *,
        histories: bool = False,
    ) -> Sequence[dict[str, Any]]:
        results = []
        for index, unit in enumerate(units):
            stored = self.answers[unit_id(unit)]
            data = stored_data(stored)  # what the Ray executor does with each
            text = None
            if histories and self.histories is not None:
                name = f"s{unit.session:02d}-x{unit.section:02d}-t{unit.table:02d}.phhs"
                text = self.histories[name]
            if on_result is not None:
                on_result(index, data, text, stored)
            results.append(data)
        return results

    def run(self, units: Sequence[TableUnit], on_result: Any = None) -> Any:
        raise NotImplementedError("the driver is given JSON data, as from Ray")


def _histories(run_dir: Path) -> dict[str, str]:
    """The played run's hand histories by file name, read before the clock starts (a
    worker's arrive in memory)."""
    return {
        path.name: path.read_text(encoding="utf-8")
        for path in (run_dir / "histories").glob("*.phhs")
    }


def _answers(run_dir: Path) -> dict[str, bytes]:
    """Every stored table-session's result, in its stored form, as a worker sends it."""
    import sqlite3

    connection = sqlite3.connect(run_dir / "store.sqlite")
    try:
        rows = connection.execute("SELECT unit_id, result FROM units").fetchall()
    finally:
        connection.close()
    return dict(rows)


def replay(
    config_path: Path, played: Path, target: Path, *, worker_histories: bool
) -> dict[str, float]:
    """The played run's results handed to a fresh run directory, with the hand histories
    the workers wrote (``worker_histories``) or without (the driver writes them): its
    seconds and CPU."""
    config = load_config(config_path)
    answers = _answers(played)
    histories = _histories(played) if worker_histories else None
    source = RunStore.read(played)
    try:
        meta = source.meta()
    finally:
        source.close()
    target.mkdir(parents=True)
    store = RunStore.create(target, {k: v for k, v in meta.items() if k != "store_version"})
    started, cpu = time.perf_counter(), time.process_time()
    try:
        checkpoint = CheckpointExecutor(Replay(answers, histories), store, histories=True)
        event = run_event(
            config,
            target,
            executor=checkpoint,
            histories=True,
            code=stored_code(store),
            written_histories=checkpoint.history_of,
        )
    finally:
        store.close()
    return {
        "seconds": time.perf_counter() - started,
        "cpu_seconds": time.process_time() - cpu,
        "table_deals": event.deals_played,
        "table_sessions": len(answers),
    }


def run() -> dict[str, object]:
    bots = int(os.environ.get("BENCH_DRIVER_BOTS", 1000))
    folder = Path(tempfile.mkdtemp(prefix="dp-arena-driver-"))
    try:
        config = folder / "event.toml"
        config.write_text(
            '[event]\nname = "driver"\nformat = "regular"\nseed = 11\n\n'
            f'[field]\ncount = {bots}\nfrom = ["random", "calling-station", "aggressive", "tag"]\n'
        )
        played = folder / "played"
        start_run(load_config(config), played, ExecutorOptions("serial"), quiet=True)
        rounds, rendering = [], []
        for index in range(ROUNDS):  # taking turns: the machine may be shared
            rounds.append(replay(config, played, folder / f"w{index}", worker_histories=True))
            rendering.append(replay(config, played, folder / f"d{index}", worker_histories=False))
        identical = all(
            (folder / f"{kind}{index}" / "results.json").read_bytes()
            == (played / "results.json").read_bytes()
            for index in range(ROUNDS)
            for kind in "wd"
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    best = min(rounds, key=lambda figures: figures["seconds"])
    rate = best["table_deals"] / best["seconds"]
    alone = min(rendering, key=lambda figures: figures["seconds"])
    alone_rate = alone["table_deals"] / alone["seconds"]
    figures: dict[str, object] = {
        "bots": bots,
        "table_deals": best["table_deals"],
        "table_sessions": best["table_sessions"],
        "seconds_each_round": [round(each["seconds"], 3) for each in rounds],
        "cpu_seconds": round(best["cpu_seconds"], 3),
        "table_deals_per_second": round(rate),
        "ms_per_table_session": round(best["seconds"] / best["table_sessions"] * 1e3, 3),
        "goal_table_deals_per_second": GOAL,
        "writing_histories_itself": {
            "seconds_each_round": [round(each["seconds"], 3) for each in rendering],
            "table_deals_per_second": round(alone_rate),
        },
        "ratio_to_writing_histories_itself": round(rate / alone_rate, 2),
        "results_identical": identical,
        "load_average": os.getloadavg()[0],
    }
    print(
        f"driver capacity: {rate:,.0f} table-deals/s ({figures['ms_per_table_session']} ms per"
        f" table-session, {best['table_deals']:,} table-deals of {bots} bots replayed;"
        f" goal {GOAL:,}/s), {rate / alone_rate:.2f}x the {alone_rate:,.0f}/s of a driver"
        f" that writes the hand histories itself; results.json identical: {identical}"
        f" (load average {figures['load_average']:.1f})",
        flush=True,
    )
    return figures


if __name__ == "__main__":
    run()
