"""Scale benchmark: whole events through ``dp-arena run``, on Ray and serially.

``make bench-scale`` (``python -m bench scale``) measures, on this machine:

1. a regular tournament of 1,000 built-in bots (the default field: random, calling
   station, aggressive, TAG, equity; trusted, in-process) on the embedded Ray with 2
   workers, and the same event serially: wall time, Ray start-up, deals per second,
   peak memory of the driver and of the workers, the checkpoint store's size per
   million table-deals;
2. the same field as sandboxed bots (the built-ins' files as untrusted Python specs,
   one isolated process per seat), when :func:`dp_arena.sandbox.open_seat` exists;
3. the speed-up of Ray with 2 workers over serial on a CPU-bound event (Monte-Carlo
   equity bots only), Ray's start-up excluded and reported apart (target 1.7x);
4. a projection, from the measured per-deal and per-table-session costs, of a
   100,000-bot regular tournament on clusters of N machines (``docs/scaling.md``).

Every event runs in a fresh ``dp-arena run`` process, so each driver's peak memory is
its own. Sizes can be changed with ``BENCH_SCALE_BOTS`` (1000), ``BENCH_SCALE_SANDBOXED``
(1000; 0 skips the sandboxed event), ``BENCH_SCALE_CPU_BOTS`` (400) and
``BENCH_SCALE_WORKERS`` (2); ``BENCH_SCALE_BIG`` (0: skipped) adds an event of that
many fast built-ins (random, calling station, aggressive, TAG) on the embedded Ray, for
the 100,000-bot goals (its play in 2 minutes, all its processes under 1 GiB). Every run's
peak memory is also taken for its whole process tree (the driver, Ray's own processes
and the workers: the sum of their proportional set sizes, sampled twice a second, or
less often where a look would cost the event more than a twentieth of a core). The
CPU-bound event is run 3 times each way, taking turns, and the fastest of each counts:
on a shared machine that is the nearest to a quiet one.
It takes several minutes on 2 cores, most of it the sandboxed event (a process per seat
per table-session).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from dp_arena.agents.spec import AGENTS_DIR, BUILTINS
from dp_arena.runner.progress import PlanTotals
from dp_arena.tournament.formats import get_format
from dp_arena.tournament.loading import DEFAULT_FIELD, default_config

ROOT = Path(__file__).resolve().parents[1]
TARGET_SPEED_UP = 1.7
ROUNDS = 3  # serial and Ray runs of the CPU-bound event, taking turns
PROJECTED_BOTS = 100_000
# The big event (BENCH_SCALE_BIG bots of the fast built-ins on the embedded Ray) and its
# goals on this machine: its play in 2 minutes, all its processes under 1 GiB.
FAST_FIELD = ("random", "calling-station", "aggressive", "tag")
BIG_GOAL_SECONDS = 120
BIG_GOAL_MIB = 1024
PROJECTED_CLUSTERS = ((1, 2), (1, 16), (4, 16), (16, 16), (64, 16))  # (machines, cores each)


def _setting(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def _config(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(f'[event]\nname = "{name}"\nformat = "regular"\nseed = 2026\n\n{body}')
    return path


def _field(count: int, pool: tuple[str, ...]) -> str:
    names = ", ".join(f'"{name}"' for name in pool)
    return f"[field]\ncount = {count}\nfrom = [{names}]\n"


def _sandboxed_entrants(count: int) -> str:
    """``count`` untrusted entrants: the built-ins' own files, as submitted bots are."""
    lines = []
    for index in range(count):
        builtin = DEFAULT_FIELD[index % len(DEFAULT_FIELD)]
        spec = f"{AGENTS_DIR / BUILTINS[builtin].split(':')[0]}:{BUILTINS[builtin].split(':')[1]}"
        lines.append(
            f'[[entrants]]\nname = "{builtin}-{index + 1}"\nagent = "{spec}"\ntrusted = false\n'
        )
    return "\n".join(lines)


def _mib(kib: int) -> float:
    return round(kib / 1024, 1)


def _descendants(root: int) -> list[int]:
    """``root`` and every process below it (Ray's own processes and its workers are
    started by the driver)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, waiting = [], [root]
    while waiting:
        pid = waiting.pop()
        found.append(pid)
        waiting.extend(children.get(pid, ()))
    return found


def _proportional_kib(pid: int) -> int:
    """A process's proportional set size (its resident pages, shared ones divided among
    the processes that share them), so that a tree's sum counts each page once."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


class _TreeMemory:
    """The peak of a process tree's memory (the sum of its processes' proportional set
    sizes), sampled by a thread while the tree runs: every ``interval`` seconds, or less
    often when a look costs more than a twentieth of that. (A process's proportional
    size is a walk of its page tables: with the 130 processes of a sandboxed event's
    seats and templates a look costs about 95 ms of CPU, and looking twice a second
    took a tenth of the machine from the event being measured.)"""

    SHARE = 20  # at most one twentieth of a core on looking

    def __init__(self, root: int, interval: float = 0.5) -> None:
        self.root, self.interval = root, interval
        self.peak_kib, self.peak_processes = 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        wait = self.interval
        while not self._stop.wait(wait):
            started = time.thread_time()
            pids = _descendants(self.root)
            total = sum(_proportional_kib(pid) for pid in pids)
            if total > self.peak_kib:
                self.peak_kib, self.peak_processes = total, len(pids)
            wait = max(self.interval, self.SHARE * (time.thread_time() - started))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _run(config: Path, run_dir: Path, *options: str) -> dict[str, Any]:
    """``dp-arena run CONFIG`` in a fresh process; its figures, with the peak memory of
    the whole process tree (the driver, Ray's processes, the workers)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dp_arena.cli",
            "run",
            str(config),
            "--run-dir",
            str(run_dir),
            "--quiet",
            *options,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
    )
    memory = _TreeMemory(process.pid)
    try:
        _, errors = process.communicate()
    finally:
        memory.stop()
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise RuntimeError(f"dp-arena run {config.name} failed:\n{errors[-3000:]}")
    runner = json.loads((run_dir / "runner.json").read_text())
    store_bytes = (run_dir / "store.sqlite").stat().st_size
    deals = runner["deals_played"]
    workers = runner["worker_peak_rss_kib"]
    return {
        "executor": runner["executor"],
        "wall_seconds": round(wall, 2),
        "ray_startup_seconds": runner["startup_seconds"],
        "play_seconds": runner["seconds"],
        "table_sessions": runner["units_played"],
        "table_deals": deals,
        "deals_per_second": runner["deals_per_second"],
        "driver_peak_mib": _mib(runner["driver_peak_rss_kib"]),
        "driver_cpu_seconds": runner["driver_cpu_seconds"],
        "worker_processes": len(workers),
        "worker_peak_mib": _mib(max(workers.values())) if workers else None,
        "tree_peak_mib": _mib(memory.peak_kib),
        "tree_processes_at_peak": memory.peak_processes,
        "store_bytes": store_bytes,
        "store_mib_per_million_deals": round(store_bytes / deals * 1e6 / 2**20, 1),
    }


def _show(label: str, figures: dict[str, Any]) -> None:
    print(
        f"{label}: {figures['table_deals']:,} table-deals in {figures['play_seconds']:.1f} s"
        f" ({figures['deals_per_second']:,.0f}/s) on {figures['executor']};"
        f" start-up {figures['ray_startup_seconds']:.1f} s, wall {figures['wall_seconds']:.1f} s;"
        f" driver {figures['driver_peak_mib']} MiB, workers {figures['worker_peak_mib']} MiB,"
        f" all its processes {figures['tree_peak_mib']} MiB at most;"
        f" store {figures['store_mib_per_million_deals']} MiB per million deals",
        flush=True,
    )


def costs(serial: dict[str, Any], ray: dict[str, Any], workers: int) -> dict[str, float]:
    """Per-table-deal CPU of the workers and per-table-session CPU of the driver, from a
    serial and a Ray run of the same event: the driver's share is what the Ray driver
    spent; the rest of the serial run's CPU is the workers' share. Without a serial run
    (the sandboxed event: its bots' CPU is in other processes) the workers are taken as
    busy for the whole Ray run."""
    units = max(1, ray["table_sessions"])
    driver = ray["driver_cpu_seconds"] / units
    if serial:
        deal = (serial["driver_cpu_seconds"] - ray["driver_cpu_seconds"]) / serial["table_deals"]
    else:
        deal = ray["play_seconds"] * workers / ray["table_deals"]
    return {
        "worker_seconds_per_table_deal": round(deal, 5),
        "driver_seconds_per_table_session": round(driver, 5),
    }


def project(
    bots: int, deal_seconds: float, unit_seconds: float, machines: int, cores: int
) -> dict[str, Any]:
    """Hours for a regular tournament of ``bots`` on ``machines`` x ``cores``: session by
    session (each waits for the last), the slower of the workers (rounds of table-sessions,
    ``deal_seconds`` of CPU per table-deal) and the one driver (``unit_seconds`` per
    table-session it receives, stores and writes histories of)."""
    plan = get_format("regular").plan(default_config("regular", bots))
    slots = machines * cores
    seconds = 0.0
    driver_bound = 0
    for session in plan.sessions:
        units, deals = PlanTotals.of_session(session)
        workers = math.ceil(units / slots) * (deals / units) * deal_seconds
        driver = units * unit_seconds
        driver_bound += driver > workers
        seconds += max(workers, driver)
    totals = PlanTotals.of(plan)
    return {
        "machines": machines,
        "cores_each": cores,
        "hours": round(seconds / 3600, 2),
        "table_deals": totals.table_deals,
        "table_sessions": totals.table_sessions,
        "sessions": totals.sessions,
        "sessions_bound_by_the_driver": driver_bound,
    }


def run() -> dict[str, Any]:
    bots = _setting("BENCH_SCALE_BOTS", 1000)
    sandboxed = _setting("BENCH_SCALE_SANDBOXED", 1000)
    cpu_bots = _setting("BENCH_SCALE_CPU_BOTS", 400)
    big = _setting("BENCH_SCALE_BIG", 0)
    workers = str(_setting("BENCH_SCALE_WORKERS", 2))
    folder = Path(tempfile.mkdtemp(prefix="dp-arena-scale-"))
    figures: dict[str, Any] = {"bots": bots, "workers": int(workers)}
    # Named, not left to the auto executor: it plays the smaller of these events serially.
    on_ray = ("--executor", "ray", "--workers", workers)
    try:
        trusted = _config(folder, "trusted", _field(bots, DEFAULT_FIELD))
        figures["trusted_ray"] = _run(trusted, folder / "trusted-ray", *on_ray)
        _show(f"{bots} trusted bots, Ray", figures["trusted_ray"])
        figures["trusted_serial"] = _run(trusted, folder / "trusted-serial", "--executor", "serial")
        _show(f"{bots} trusted bots, serial", figures["trusted_serial"])
        same = (folder / "trusted-ray" / "results.json").read_bytes() == (
            folder / "trusted-serial" / "results.json"
        ).read_bytes()
        figures["trusted_results_identical"] = same
        print(f"results.json identical on Ray and serially: {same}", flush=True)

        # The machine may be shared: serial and Ray take turns, and the fastest of each
        # counts (what the machine can do when nothing else runs).
        cpu = _config(folder, "cpu-bound", _field(cpu_bots, ("equity",)))
        serials, rays = [], []
        for round_number in range(ROUNDS):
            serials.append(_run(cpu, folder / f"cpu-serial-{round_number}", "--executor", "serial"))
            _show(f"{cpu_bots} equity bots, serial", serials[-1])
            rays.append(_run(cpu, folder / f"cpu-ray-{round_number}", *on_ray))
            _show(f"{cpu_bots} equity bots, Ray", rays[-1])
        serial = min(serials, key=lambda figures: figures["play_seconds"])
        ray = min(rays, key=lambda figures: figures["play_seconds"])
        speed_up = serial["play_seconds"] / ray["play_seconds"]
        figures["cpu_bound"] = {
            "bots": cpu_bots,
            "serial": serial,
            "ray": ray,
            "serial_seconds_each_round": [each["play_seconds"] for each in serials],
            "ray_seconds_each_round": [each["play_seconds"] for each in rays],
            "speed_up": round(speed_up, 2),
            "target": TARGET_SPEED_UP,
            "ray_startup_seconds": ray["ray_startup_seconds"],
            "load_average_at_end": os.getloadavg()[0],
        }
        print(
            f"speed-up of Ray with {workers} workers over serial: {speed_up:.2f}x"
            f" (target {TARGET_SPEED_UP}x; Ray start-up {ray['ray_startup_seconds']:.1f} s apart)",
            flush=True,
        )

        if big:
            field = _config(folder, "big", _field(big, FAST_FIELD))
            figures["big"] = _run(field, folder / "big-ray", *on_ray)
            figures["big"]["bots"] = big
            figures["big"]["goals"] = {"play_seconds": BIG_GOAL_SECONDS, "peak_mib": BIG_GOAL_MIB}
            _show(f"{big:,} fast built-in bots, Ray", figures["big"])
            shutil.rmtree(folder / "big-ray", ignore_errors=True)

        if sandboxed:
            try:
                from dp_arena.sandbox import open_seat  # noqa: F401
            except ImportError:
                figures["sandboxed"] = "skipped: dp_arena.sandbox.open_seat is not available"
            else:
                boxed = _config(folder, "sandboxed", _sandboxed_entrants(sandboxed))
                figures["sandboxed"] = _run(boxed, folder / "sandboxed-ray", *on_ray)
                _show(f"{sandboxed} sandboxed bots, Ray", figures["sandboxed"])

        # Costs measured above, per kind of field; then the 100,000-bot projection.
        profiles = {
            "trusted default field": costs(
                figures["trusted_serial"], figures["trusted_ray"], int(workers)
            ),
            "CPU-bound (equity bots)": costs(serial, ray, int(workers)),
        }
        if isinstance(figures.get("sandboxed"), dict):
            profiles["sandboxed default field"] = costs({}, figures["sandboxed"], int(workers))
        figures["projection"] = {"bots": PROJECTED_BOTS, "profiles": {}}
        for name, measured in profiles.items():
            rows = [
                project(
                    PROJECTED_BOTS,
                    measured["worker_seconds_per_table_deal"],
                    measured["driver_seconds_per_table_session"],
                    machines,
                    cores,
                )
                for machines, cores in PROJECTED_CLUSTERS
            ]
            figures["projection"]["profiles"][name] = {**measured, "clusters": rows}
            for row in rows:
                print(
                    f"projection, {name}: {PROJECTED_BOTS:,} bots on {row['machines']} x"
                    f" {row['cores_each']} cores: {row['hours']} h"
                    f" ({row['sessions_bound_by_the_driver']} of {row['sessions']} sessions"
                    " bound by the driver)",
                    flush=True,
                )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return figures


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
