"""Run the benchmarks: ``python -m bench [NAME ...]`` (names as in ``bench/bench_NAME.py``)."""

from __future__ import annotations

import importlib
import json
import pkgutil
import platform
import sys
import time
from pathlib import Path

import bench

RESULTS = Path(__file__).resolve().parent / "results" / "bench.json"


def main(argv: list[str]) -> int:
    names = sorted(
        info.name[len("bench_") :]
        for info in pkgutil.iter_modules(bench.__path__)
        if info.name.startswith("bench_") and info.name != "bench_scale"
    )
    wanted = argv or names
    unknown = sorted(set(wanted) - set(names) - {"scale"})
    if unknown:
        print(f"unknown benchmarks: {', '.join(unknown)}; known: {', '.join(names)} (and scale)")
        return 2
    figures: dict[str, object] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    for name in wanted:
        print(f"\n== {name} ==", flush=True)
        module = importlib.import_module(f"bench.bench_{name}")
        figures[name] = module.run()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    target = RESULTS if not argv else RESULTS.with_name(f"bench-{'-'.join(wanted)}.json")
    target.write_text(json.dumps(figures, indent=2) + "\n")
    shown = target.relative_to(Path.cwd()) if target.is_relative_to(Path.cwd()) else target
    print(f"\nfigures written to {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
