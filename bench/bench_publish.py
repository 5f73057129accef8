"""Publishing a leaderboard against playing the event: two regular tournaments of 20
built-in bots (1,530 and 7,290 table-deals) are played, then published with the
board-luck correction (the default), with the all-in equity adjustment instead (the
default before it), and with no adjusted score, each in a fresh process as an
organiser would run it.

The figure that matters is the ratio of publishing to playing, both measured here in
the same run on the same machine: absolute seconds on a shared machine say little.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIELD = ["random", "calling-station", "aggressive", "tag", "learned"]
EVENTS = {
    # 5 tables x 4 for 120 deals twice, 4 x 3 for 60, the final: 1,530 table-deals.
    "1,530 table-deals": {"4": 120, "3": 60},
    # The same with sessions five times as long: 7,290 table-deals.
    "7,290 table-deals": {"4": 600, "3": 300},
}


def _config(name: str, deals: dict[str, int]) -> str:
    listed = ", ".join(f'"{bot}"' for bot in FIELD)
    table = ", ".join(f'"{seats}" = {count}' for seats, count in deals.items())
    return (
        f'[event]\nname = "Benchmark: {name}"\nformat = "regular"\nseed = 5\n\n'
        f"[table]\ndeals = {{ {table} }}\n\n[field]\ncount = 20\nfrom = [{listed}]\n"
    )


def _timed(arguments: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "dp_arena.cli", *arguments],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def run() -> dict[str, object]:
    figures: dict[str, object] = {"bots": 20, "field": FIELD, "executor": "serial (one core)"}
    for label, deals in EVENTS.items():
        with tempfile.TemporaryDirectory(prefix="dp-arena-bench-") as folder:
            config = Path(folder) / "event.toml"
            config.write_text(_config(label, deals))
            run_dir = Path(folder) / "run"
            play_wall = _timed(
                ["run", str(config), "--run-dir", str(run_dir), "--executor", "serial", "--quiet"]
            )
            timing = json.loads((run_dir / "timing.json").read_text())
            played = float(timing["seconds"])
            out = Path(folder) / "leaderboard"
            publish = ["leaderboard", "publish", str(run_dir), "--out", str(out)]
            luck = _timed(publish)
            all_in = _timed([*publish, "--adjusted", "all-in"])
            raw = _timed([*publish, "--adjusted", "none"])
        figures[label] = {
            "table_deals": timing["deals_played"],
            "play_seconds": round(played, 2),
            "play_wall_seconds": round(play_wall, 2),
            "publish_seconds": round(luck, 2),
            "publish_all_in_seconds": round(all_in, 2),
            "publish_no_adjustment_seconds": round(raw, 2),
            "publish_to_play": round(luck / played, 3),
            "publish_all_in_to_play": round(all_in / played, 3),
            "publish_to_publish_all_in": round(luck / all_in, 3),
        }
        print(
            f"{label}: played in {played:.1f} s; published in {luck:.1f} s with the board-luck"
            f" correction ({luck / played:.2f} x the play), {all_in:.1f} s with the all-in"
            f" adjustment ({all_in / played:.2f} x), {raw:.1f} s with none"
        )
    return figures
