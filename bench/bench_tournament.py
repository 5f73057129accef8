"""A regular tournament of 100 built-in bots on one core (the serial executor): wall
time and deals per second, for the whole event and per bot mix.

Two fields: the fast built-ins (random, calling-station, aggressive, tag) and the same
with the Monte-Carlo equity bot added, which costs far more per decision. Each runs as
``dp-arena run --executor serial`` in a fresh process, as an organiser would run it;
then each again on an embedded Ray with 2 workers (its start-up included, as an
organiser waits for it), for the ratio serial / Ray, and with ``--executor auto`` to
show which it picks and why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIELDS = {
    "fast built-ins": ["random", "calling-station", "aggressive", "tag"],
    "with equity": ["random", "calling-station", "aggressive", "tag", "equity"],
}
PLAYERS = 100


def _config(bots: list[str]) -> str:
    listed = ", ".join(f'"{bot}"' for bot in bots)
    return (
        '[event]\nname = "Benchmark: regular tournament of 100 built-ins"\n'
        f'format = "regular"\nseed = 7\n\n[field]\ncount = {PLAYERS}\nfrom = [{listed}]\n'
    )


def _run(config: Path, run_dir: Path, *options: str) -> tuple[float, dict[str, object]]:
    started = time.perf_counter()
    subprocess.run(
        [
            *(sys.executable, "-m", "dp_arena.cli", "run", str(config)),
            *("--run-dir", str(run_dir), "--quiet", *options),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
    )
    wall = time.perf_counter() - started
    return wall, json.loads((run_dir / "runner.json").read_text())


def run() -> dict[str, object]:
    figures: dict[str, object] = {"players": PLAYERS, "executor": "serial (one core)"}
    for label, bots in FIELDS.items():
        with tempfile.TemporaryDirectory(prefix="dp-arena-bench-") as folder:
            config = Path(folder) / "event.toml"
            config.write_text(_config(bots))
            wall, runner = _run(config, Path(folder) / "serial", "--executor", "serial")
            ray_wall, ray = _run(
                config, Path(folder) / "ray", "--executor", "ray", "--workers", "2"
            )
            _, auto = _run(config, Path(folder) / "auto")
        deals = int(str(runner["deals_played"]))
        seconds = float(str(runner["seconds"]))
        figures[label] = {
            "bots": bots,
            "wall_seconds": round(wall, 2),
            "table_deals": deals,
            "deals_per_second": round(deals / seconds, 1),
            "ray_wall_seconds": round(ray_wall, 2),
            "ray_startup_seconds": ray["startup_seconds"],
            "serial_to_ray": round(wall / ray_wall, 2),
            "auto": auto["executor_choice"],
        }
        print(
            f"{label:<15} {PLAYERS} players: {deals:,} table-deals in {wall:.1f} s wall"
            f" ({deals / seconds:,.0f} deals/s while playing); embedded Ray, 2 workers:"
            f" {ray_wall:.1f} s wall ({ray['startup_seconds']} s of it start-up), serial/Ray"
            f" {wall / ray_wall:.2f}x; {auto['executor_choice']}",
            flush=True,
        )
    return figures
