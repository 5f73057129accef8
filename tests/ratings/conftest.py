"""Shared fixtures: one small real event, played once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURE_CONFIG = """
[event]
name = "Ratings fixture"
format = "sng-round-robin"
seed = 11

[[entrants]]
name = "tag-a"
agent = "tag"

[[entrants]]
name = "tag-b"
agent = "tag"

[[entrants]]
name = "random"
agent = "random"

[[entrants]]
name = "caller"
agent = "calling-station"

[[entrants]]
name = "aggro"
agent = "aggressive"

[[entrants]]
name = "learned"
agent = "learned"
"""


def play_event(folder: Path, config_text: str, name: str = "run") -> Path:
    """Play the event of ``config_text`` in this process into ``folder/name``."""
    from dp_arena.runner.launch import ExecutorOptions, start_run
    from dp_arena.tournament.loading import load_config

    folder.mkdir(parents=True, exist_ok=True)
    config_path = folder / f"{name}.toml"
    config_path.write_text(config_text, encoding="utf-8")
    run_dir = folder / name
    start_run(load_config(config_path), run_dir, ExecutorOptions("serial"), quiet=True)
    return run_dir


@pytest.fixture(scope="session")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished Round Robin Sit n Go of six built-in entrants (two of them tag): 5
    mini-matches of 3 heads-up tables, 6 deals each; with its checkpoint store."""
    return play_event(tmp_path_factory.mktemp("ratings-run"), FIXTURE_CONFIG)
