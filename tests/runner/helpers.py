"""Shared helpers of the runner tests: event configs, the command line in a subprocess,
the reference results of the plain serial event driver, and reading a store with
nothing but ``sqlite3``."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from dp_arena.tournament.config import load_config
from dp_arena.tournament.event import run_event

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"


def write_config(
    folder: Path,
    *,
    players: int = 40,
    seed: int = 11,
    pool: Sequence[str] = ("random", "calling-station", "aggressive", "tag"),
    entrants: str = "",
    name: str = "runner test",
) -> Path:
    """A regular tournament config of ``players`` (built-ins drawn from ``pool``, plus the
    ``[[entrants]]`` TOML in ``entrants``) written to ``folder/event.toml``."""
    folder.mkdir(parents=True, exist_ok=True)
    listed = entrants.count("[[entrants]]")
    pool_text = ", ".join(f'"{name}"' for name in pool)
    text = (
        f'[event]\nname = "{name}"\nformat = "regular"\nseed = {seed}\n\n'
        f"[field]\ncount = {players - listed}\nfrom = [{pool_text}]\n\n{entrants}"
    )
    path = folder / "event.toml"
    path.write_text(text, encoding="utf-8")
    return path


def reference_results(config_path: Path, run_dir: Path) -> bytes:
    """``results.json`` of the plain serial event driver (no store, no Ray): the oracle
    every executor and every resume must match byte for byte."""
    run_event(load_config(config_path), run_dir)
    return (run_dir / "results.json").read_bytes()


def cli_command(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "dp_arena.cli", *arguments]


def cli_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    environment = dict(os.environ)
    environment.pop("RAY_ADDRESS", None)
    environment.update({"RAY_USAGE_STATS_ENABLED": "0", "PYTHONDONTWRITEBYTECODE": "1"})
    environment.update(extra or {})
    return environment


def cli(
    *arguments: str, extra_env: Mapping[str, str] | None = None, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    """Run ``dp-arena ARGUMENTS`` in a fresh process."""
    return subprocess.run(
        cli_command(*arguments),
        cwd=ROOT,
        env=cli_environment(extra_env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def stored_units(run_dir: Path) -> int:
    """Rows in the store's ``units`` table, read with plain sqlite3 (0 before it exists)."""
    path = run_dir / "store.sqlite"
    if not path.exists():
        return 0
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        with contextlib.closing(connection):
            return int(connection.execute("SELECT COUNT(*) FROM units").fetchone()[0])
    except sqlite3.Error:
        return 0  # the schema is not there yet
