"""The ``auto`` executor: serial where an embedded Ray cannot pay for its start-up, an
embedded Ray above that, the cluster whenever an address is given; the run says which
it chose and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dp_arena.errors import RunError
from dp_arena.runner import executors
from dp_arena.runner.executors import ExecutorOptions, choose_executor
from dp_arena.runner.launch import start_run
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


def _break_even(deal_seconds: float) -> float:
    """The table-deals from which an embedded Ray pays on 2 cores, at ``deal_seconds``."""
    return executors.RAY_STARTUP_SECONDS / (1 - 1 / (1 + executors.RAY_EFFICIENCY)) / deal_seconds


def _chosen(config, deals: float, cores: int = 2) -> str:  # type: ignore[no-untyped-def]
    totals = PlanTotals(sessions=1, table_sessions=1, table_deals=int(deals))
    return choose_executor(ExecutorOptions(), config, totals, cores=cores).options.executor


def test_ray_is_chosen_only_where_the_play_it_saves_is_more_than_its_start_up(
    tmp_path: Path,
) -> None:
    builtins = load_config(_builtins(tmp_path))  # random and TAG: fast built-ins
    (tmp_path / "s").mkdir()
    sandboxed = load_config(_sandboxed(tmp_path / "s"))
    fast = executors.BUILTIN_DEAL_SECONDS["random"]
    assert fast == executors.BUILTIN_DEAL_SECONDS["tag"]
    trusted_even = _break_even(fast)
    sandboxed_even = _break_even(executors.SANDBOXED_DEAL_SECONDS)
    assert sandboxed_even < trusted_even
    assert _chosen(builtins, trusted_even * 0.9) == "serial"
    assert _chosen(builtins, trusted_even * 1.1) == "ray"
    assert _chosen(sandboxed, sandboxed_even * 0.9) == "serial"
    assert _chosen(sandboxed, sandboxed_even * 1.1) == "ray"
    assert _chosen(builtins, trusted_even * 100, cores=1) == "serial"  # nothing side by side
    assert _chosen(builtins, trusted_even * 0.5, cores=16) == "ray"  # more cores, more saved


def test_a_field_is_weighed_by_what_its_bots_cost(tmp_path: Path) -> None:
    """The Monte-Carlo equity bot's deals cost about ten times a fast built-in's: a field
    of it pays for Ray from far fewer table-deals, and a field of both by its mix (a
    table's deal costs what its seats' bots do)."""
    equity = load_config(_config(tmp_path, '[field]\ncount = 12\nfrom = ["equity"]\n'))
    (tmp_path / "mixed").mkdir()
    mixed = load_config(
        _config(tmp_path / "mixed", '[field]\ncount = 12\nfrom = ["equity", "random"]\n')
    )
    costs = executors.BUILTIN_DEAL_SECONDS
    assert costs["equity"] > 5 * costs["random"]
    equity_even = _break_even(costs["equity"])
    assert _chosen(equity, equity_even * 0.9) == "serial"
    assert _chosen(equity, equity_even * 1.1) == "ray"
    drawn = [entrant.spec for entrant in mixed.entrants]
    share = drawn.count("equity") / len(drawn)
    assert 0 < share < 1, drawn
    mixed_even = _break_even(share * costs["equity"] + (1 - share) * costs["random"])
    assert _chosen(mixed, mixed_even * 0.95) == "serial"
    assert _chosen(mixed, mixed_even * 1.05) == "ray"


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
