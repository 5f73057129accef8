"""The ``auto`` executor: serial where an embedded Ray cannot pay for its start-up, an
embedded Ray above that, the cluster whenever an address is given; the run says which
it chose and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dp_arena.errors import RunError
from dp_arena.runner import launch
from dp_arena.runner.launch import ExecutorOptions, choose_executor, start_run
from dp_arena.runner.progress import PlanTotals
from dp_arena.tournament.loading import load_config

REPO = Path(__file__).resolve().parents[2]


def _config(tmp_path: Path, entrants: str) -> Path:
    path = tmp_path / "event.toml"
    path.write_text(f'[event]\nname = "auto"\nformat = "regular"\nseed = 5\n\n{entrants}')
    return path


def _builtins(tmp_path: Path, count: int = 12) -> Path:
    return _config(tmp_path, f'[field]\ncount = {count}\nfrom = ["random", "tag"]\n')


def _sandboxed(tmp_path: Path, count: int = 12) -> Path:
    tag = f"{REPO / 'agents' / 'tag.py'}:TightAggressiveBot"
    lines = [f'[[entrants]]\nname = "tag-{index}"\nagent = "{tag}"\n' for index in range(count)]
    return _config(tmp_path, "\n".join(lines))


def test_a_small_event_runs_serially_and_says_why(tmp_path: Path) -> None:
    config = load_config(_builtins(tmp_path))
    outcome = start_run(config, tmp_path / "run", ExecutorOptions(), quiet=True)
    assert outcome.executor == "serial (in this process)"
    assert outcome.executor_choice.startswith("auto: serial (")
    assert "in-process field" in outcome.executor_choice
    assert "embedded Ray's" in outcome.executor_choice
    assert "executor auto: serial" in outcome.report()
    figures = json.loads((tmp_path / "run" / "runner.json").read_text())
    assert figures["executor_choice"] == outcome.executor_choice
    assert (
        f"executor chosen: {outcome.executor_choice}" in (tmp_path / "run" / "run.log").read_text()
    )


def test_ray_is_chosen_only_where_the_play_it_saves_is_more_than_its_start_up(
    tmp_path: Path,
) -> None:
    builtins = load_config(_builtins(tmp_path))
    (tmp_path / "s").mkdir()
    sandboxed = load_config(_sandboxed(tmp_path / "s"))
    auto = ExecutorOptions()
    speed_up = 1 + launch.RAY_EFFICIENCY
    # The break-even number of table-deals on 2 cores, for each field.
    trusted_even = launch.RAY_STARTUP_SECONDS / (1 - 1 / speed_up) / launch.TRUSTED_DEAL_SECONDS
    sandboxed_even = launch.RAY_STARTUP_SECONDS / (1 - 1 / speed_up) / launch.SANDBOXED_DEAL_SECONDS
    assert sandboxed_even < trusted_even

    def chosen(config, deals: float, cores: int = 2) -> str:  # type: ignore[no-untyped-def]
        totals = PlanTotals(sessions=1, table_sessions=1, table_deals=int(deals))
        return choose_executor(auto, config, totals, cores=cores).options.executor

    assert chosen(builtins, trusted_even * 0.9) == "serial"
    assert chosen(builtins, trusted_even * 1.1) == "ray"
    assert chosen(sandboxed, sandboxed_even * 0.9) == "serial"
    assert chosen(sandboxed, sandboxed_even * 1.1) == "ray"
    assert chosen(builtins, trusted_even * 100, cores=1) == "serial"  # nothing side by side
    assert chosen(builtins, trusted_even * 0.5, cores=16) == "ray"  # more cores, more saved


def test_an_address_means_the_cluster_and_an_explicit_executor_is_kept(tmp_path: Path) -> None:
    config = load_config(_builtins(tmp_path))
    totals = PlanTotals(sessions=1, table_sessions=1, table_deals=10)
    cluster = choose_executor(ExecutorOptions("auto", 3, "10.0.0.1:6379"), config, totals)
    assert cluster.options == ExecutorOptions("ray", 3, "10.0.0.1:6379")
    assert "given by --ray-address 10.0.0.1:6379" in cluster.reason
    kept = choose_executor(ExecutorOptions("ray"), config, totals)
    assert kept.options == ExecutorOptions("ray") and kept.reason == "--executor ray"
    with pytest.raises(RunError, match="--ray-address needs"):
        ExecutorOptions("serial", None, "auto")


def test_auto_and_serial_give_the_same_results(tmp_path: Path) -> None:
    config = load_config(_builtins(tmp_path))
    start_run(config, tmp_path / "auto", ExecutorOptions(), quiet=True)
    start_run(config, tmp_path / "serial", ExecutorOptions("serial"), quiet=True)
    assert (tmp_path / "auto" / "results.json").read_bytes() == (
        tmp_path / "serial" / "results.json"
    ).read_bytes()
