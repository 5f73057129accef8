"""A regular tournament of 100 built-in bots on one core (the serial executor): wall
time and deals per second, for the whole event and per bot mix.

Two fields: the fast built-ins (random, calling-station, aggressive, tag) and the same
with the Monte-Carlo equity bot added, which costs far more per decision. Each runs as
``dp-arena run --executor serial`` in a fresh process, as an organiser would run it.
"""

from __future__ import annotations

import json
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


def run() -> dict[str, object]:
    figures: dict[str, object] = {"players": PLAYERS, "executor": "serial (one core)"}
    for label, bots in FIELDS.items():
        with tempfile.TemporaryDirectory(prefix="dp-arena-bench-") as folder:
            config = Path(folder) / "event.toml"
            config.write_text(_config(bots))
            run_dir = Path(folder) / "run"
            started = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "dp_arena.cli",
                    "run",
                    str(config),
                    "--run-dir",
                    str(run_dir),
                    "--executor",
                    "serial",
                    "--quiet",
                ],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            wall = time.perf_counter() - started
            timing = json.loads((run_dir / "timing.json").read_text())
        deals = timing["deals_played"]
        figures[label] = {
            "bots": bots,
            "wall_seconds": round(wall, 2),
            "table_deals": deals,
            "deals_per_second": round(deals / timing["seconds"], 1),
        }
        print(
            f"{label:<15} {PLAYERS} players: {deals:,} table-deals in {wall:.1f} s wall"
            f" ({deals / timing['seconds']:,.0f} deals/s while playing)"
        )
    return figures
