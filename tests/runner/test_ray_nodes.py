"""Mirrors apart on a Ray cluster of two nodes: the mirrored tables of a match, and a
team's copies in a tournament's section, play on different nodes; the run says so in
``runner.json`` and its closing lines, and its results are the serial driver's byte for
byte. Turned off, Ray places the tables and the run says that instead.

The cluster is ``ray.cluster_utils.Cluster``: a head and a second node on this machine,
each with its own raylet, object store and workers (two Ray node ids: what the driver
places tables by). It is this module's only Ray, with its own temporary folder
(``RAY_TMPDIR``), so that no other Ray on the machine finds it, and it is shut down by
its own handle, never ``ray stop``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from dp_arena.match import MatchConfig, agent_names
from dp_arena.runner import ExecutorOptions, start_run
from dp_arena.runner.ray_executor import RayExecutor
from dp_arena.server.ladder import match_units
from dp_arena.tournament.loading import load_config
from dp_arena.units import SerialExecutor

from .helpers import ROOT, reference_results, write_config

SANDBOXED = f"{ROOT / 'examples' / 'bots' / 'python_class' / 'bot.py'}:TightCaller"


@pytest.fixture(scope="module")
def two_nodes(ray_token: Path) -> Iterator[str]:
    """The address of a Ray cluster of two nodes of one CPU each."""
    from dp_arena.runner.ray_executor import _choose_authentication

    # A short folder: Ray's socket paths inside it must fit in 107 bytes.
    temp_dir = tempfile.mkdtemp(prefix="dpn", dir="/tmp")
    saved = {name: os.environ.get(name) for name in ("RAY_TMPDIR", "RAY_USAGE_STATS_ENABLED")}
    os.environ.update({"RAY_TMPDIR": temp_dir, "RAY_USAGE_STATS_ENABLED": "0"})
    _choose_authentication(embedded=True)  # the nodes and the driver use the token
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "include_dashboard": False},
        shutdown_at_exit=False,
    )
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        yield cluster.address
    finally:
        cluster.shutdown()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(temp_dir, ignore_errors=True)


@pytest.mark.parametrize("apart", [True, False], ids=["apart", "turned-off"])
def test_a_matchs_mirrored_tables_play_on_two_nodes(two_nodes: str, apart: bool) -> None:
    config = MatchConfig(specs=(SANDBOXED, "calling-station"), deals=4, seed=3)
    units = match_units(config, agent_names(config.specs))
    with RayExecutor(address=two_nodes, mirrors_apart=apart) as executor:
        assert len(executor.nodes) == 2
        results = executor.run(units)
        placement = executor.placement
    assert results == SerialExecutor().run(units)
    assert all(result.faults == () for result in results)
    if apart:
        # Both tables hold the sandboxed bot: one copy on each node, as the workers said.
        assert (placement.mode, placement.nodes, placement.most_together) == ("apart", 2, 1)
        assert placement.describe().startswith("mirrors apart on 2 nodes")
    else:
        assert (placement.mode, placement.nodes) == ("off", 2)
        assert placement.most_together in (1, 2)  # wherever Ray sent them
        assert "turned off (--no-mirrors-apart)" in placement.describe()


def test_a_run_keeps_a_teams_copies_apart_and_says_so(two_nodes: str, tmp_path: Path) -> None:
    team = "".join(
        f'[[entrants]]\nname = "team-{member}"\nagent = "{SANDBOXED}"\n\n' for member in (1, 2)
    )
    config = write_config(tmp_path, players=8, seed=7, entrants=team)
    reference = reference_results(config, tmp_path / "reference")
    run_dir = tmp_path / "run"
    outcome = start_run(
        load_config(config), run_dir, ExecutorOptions("ray", None, two_nodes), quiet=True
    )
    assert (run_dir / "results.json").read_bytes() == reference
    # The team's copies met in session 1's one section, at two of its four tables.
    histories = (run_dir / "histories").glob("s01-x01-*")
    assert len([path for path in histories if "team-" in path.read_text()]) == 2
    placement = json.loads((run_dir / "runner.json").read_text())["placement"]
    assert placement["mode"] == "apart" and placement["nodes"] == 2
    assert placement["most_copies_on_a_node"] == 1
    assert f"placement: {placement['description']}" in outcome.report()
    assert placement["description"] in (run_dir / "run.log").read_text()
