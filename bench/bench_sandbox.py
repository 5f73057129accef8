"""Sandbox benchmark: the decision round trip of a sandboxed trivial bot (median and
p99, target median < 150 µs), deals per second of a heads-up duplicate session of
sandboxed trivial bots against the same bots in-process, and a whole event: a regular
tournament of 100 entrants made of the fast built-ins' own files, played serially with
every seat sandboxed (``trusted = false``) and in-process (``trusted = true``), in
turns, the fastest of each counting (goal: sandboxed at most 3x in-process), and once
with every seat exec'd instead of forked from a template (``DP_ARENA_SEATS=exec``).
``BENCH_SANDBOX_ENTRANTS`` (100) and ``BENCH_SANDBOX_ROUNDS`` (3) change it."""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dp_arena.agents import (
    InProcessSeat,
    SessionContext,
    TableSession,
    load_agent,
    observe,
    play_table_session,
)
from dp_arena.engine import Betting, TableRules, deck_for, new_hand
from dp_arena.sandbox import isolation, open_seat

TRIVIAL = """
from dp_arena.engine import Action


class Trivial:
    def act(self, observation):
        return Action.call() if observation.to_call else Action.check()
"""
ROUND_TRIPS = 3000
DEALS = 300
RULES = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT, cap=1000)


def _round_trips(spec: str) -> dict[str, float]:
    seat = open_seat(spec, name="trivial")
    try:
        state = new_hand(RULES, deck_for(1, 0, 0, 0), button=0)
        assert state.actor is not None
        observation = observe(state, state.actor, SessionContext())
        seat.begin_session(SessionContext())
        for _ in range(200):  # warm up both processes
            seat.decide(observation)
        times = []
        for _ in range(ROUND_TRIPS):
            started = time.perf_counter()
            seat.decide(observation)
            times.append(time.perf_counter() - started)
    finally:
        seat.close()
    times.sort()
    return {
        "median_us": round(statistics.median(times) * 1e6, 1),
        "p99_us": round(times[int(len(times) * 0.99)] * 1e6, 1),
        "round_trips": ROUND_TRIPS,
    }


def _duplicate_session(make_seat) -> dict[str, float]:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    tables = [[make_seat("a"), make_seat("b")], [make_seat("b"), make_seat("a")]]
    for seats in tables:  # load before timing play: loading is measured apart
        for seat in seats:
            wait = getattr(seat, "wait_loaded", None)
            if callable(wait):
                wait()
    loaded = time.perf_counter()
    for index, seats in enumerate(tables):
        table = TableSession(seats, [seat.name for seat in seats])
        play_table_session(
            table,
            RULES,
            event_seed=5,
            section=0,
            session=0,
            deals=DEALS,
            context=SessionContext(event="bench"),
            table_index=index,
        )
    played = time.perf_counter()
    for seats in tables:
        for seat in seats:
            seat.close()
    return {
        "deals_per_second": round(2 * DEALS / (played - loaded), 1),
        "load_seconds": round(loaded - started, 3),
        "deals": 2 * DEALS,
    }


EVENT_POOL = ("random", "calling-station", "aggressive", "tag")
EVENT_GOAL = 3.0
# A decision in a hand history: a player's fold, check or call, bet or raise (a shown
# hand, "sm", is not one).
DECISION = re.compile(r'"p\d+ (?:f|cc|cbr)\b')


def _decisions(run_dir: Path) -> int:
    """The decisions the bots of a run made, counted in its hand histories."""
    return sum(
        len(DECISION.findall(line))
        for path in (run_dir / "histories").iterdir()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("actions = ")
    )


def _event_config(folder: Path, entrants: int, trusted: bool) -> Path:
    from dp_arena.agents.spec import AGENTS_DIR, BUILTINS

    lines = ['[event]\nname = "sandboxed"\nformat = "regular"\nseed = 2026\n']
    for index in range(entrants):
        builtin = EVENT_POOL[index % len(EVENT_POOL)]
        file, name = BUILTINS[builtin].split(":")
        lines.append(
            f'[[entrants]]\nname = "{builtin}-{index + 1}"\nagent = "{AGENTS_DIR / file}:{name}"\n'
            f"trusted = {'true' if trusted else 'false'}\n"
        )
    path = folder / f"{'trusted' if trusted else 'sandboxed'}.toml"
    path.write_text("\n".join(lines))
    return path


def _event(config: Path, run_dir: Path, **environment: str) -> dict[str, float]:
    """``dp-arena run CONFIG --executor serial`` in a fresh process: its play's seconds
    (timing.json) and the whole command's."""
    started = time.perf_counter()
    subprocess.run(
        [
            *(sys.executable, "-m", "dp_arena.cli", "run", str(config)),
            *("--run-dir", str(run_dir), "--executor", "serial", "--quiet"),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        env={**os.environ, **environment},
    )
    timing = json.loads((run_dir / "timing.json").read_text())
    return {
        "seconds": timing["seconds"],
        "wall_seconds": round(time.perf_counter() - started, 3),
        "table_deals": timing["deals_played"],
    }


def event_ratio(round_trip_us: float | None = None) -> dict[str, object]:
    """The 100-entrant event sandboxed and in-process, side by side (see the module);
    with the sandboxed round trip's median (``round_trip_us``), the floor its decisions
    alone put under the ratio, whatever a seat costs to make."""
    entrants = int(os.environ.get("BENCH_SANDBOX_ENTRANTS", 100))
    rounds = int(os.environ.get("BENCH_SANDBOX_ROUNDS", 3))
    folder = Path(tempfile.mkdtemp(prefix="dp-arena-bench-"))
    folder.chmod(0o755)
    try:
        trusted = _event_config(folder, entrants, trusted=True)
        boxed = _event_config(folder, entrants, trusted=False)
        in_process, sandboxed = [], []
        for index in range(rounds):
            in_process.append(_event(trusted, folder / f"trusted-{index}"))
            sandboxed.append(_event(boxed, folder / f"sandboxed-{index}"))
        execd = _event(boxed, folder / "execd", DP_ARENA_SEATS="exec")
        decisions = _decisions(folder / "trusted-0")
        same = (
            json.loads((folder / "trusted-0" / "results.json").read_text())["standings"]
            == (json.loads((folder / "sandboxed-0" / "results.json").read_text())["standings"])
        )
    finally:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
    best_in = min(each["seconds"] for each in in_process)
    best_boxed = min(each["seconds"] for each in sandboxed)
    figures: dict[str, object] = {
        "entrants": entrants,
        "table_deals": in_process[0]["table_deals"],
        "in_process_seconds_each_round": [each["seconds"] for each in in_process],
        "sandboxed_seconds_each_round": [each["seconds"] for each in sandboxed],
        "execd_seats_seconds": execd["seconds"],
        "ratio": round(best_boxed / best_in, 2),
        "goal": EVENT_GOAL,
        "execd_to_forked": round(execd["seconds"] / best_boxed, 2),
        "same_standings": same,
        "decisions": decisions,
        "load_average": round(os.getloadavg()[0], 2),
    }
    print(
        f"regular tournament of {entrants} entrants, serial: sandboxed {best_boxed:.2f} s,"
        f" in-process {best_in:.2f} s: {best_boxed / best_in:.1f}x (goal at most"
        f" {EVENT_GOAL:g}x); seats exec'd instead of forked: {execd['seconds']:.2f} s"
        f" ({execd['seconds'] / best_boxed:.1f}x the forked); same standings: {same}"
        f" (load average {figures['load_average']})",
        flush=True,
    )
    if round_trip_us is not None:
        crossing = decisions * round_trip_us / 1e6
        figures["decisions_round_trips_seconds"] = round(crossing, 3)
        figures["ratio_floor"] = round((best_in + crossing) / best_in, 2)
        print(
            f"its {decisions:,} decisions each cross a pipe to a sandboxed bot: at the round"
            f" trip's median ({round_trip_us:g} µs) that alone is {crossing:.2f} s, so seats"
            f" made at no cost at all would still put it at"
            f" {figures['ratio_floor']:.1f}x in-process",
            flush=True,
        )
    return figures


def run() -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="dp-arena-bench-") as folder:
        Path(folder).chmod(0o755)
        bot = Path(folder) / "trivial.py"
        bot.write_text(TRIVIAL)
        spec = f"{bot}:Trivial"
        figures: dict[str, object] = {"isolation": isolation().mode}
        figures["round_trip_sandboxed"] = _round_trips(spec)
        sandboxed = _duplicate_session(lambda name: open_seat(spec, name=name))
        in_process = _duplicate_session(lambda name: InProcessSeat(load_agent(spec), name))
    figures["duplicate_heads_up_sandboxed"] = sandboxed
    figures["duplicate_heads_up_in_process"] = {
        key: value for key, value in in_process.items() if key != "load_seconds"
    }
    figures["slowdown"] = round(in_process["deals_per_second"] / sandboxed["deals_per_second"], 2)
    rt = figures["round_trip_sandboxed"]
    assert isinstance(rt, dict)
    print(f"isolation: {figures['isolation']}")
    print(
        f"sandboxed decision round trip: median {rt['median_us']} µs, p99 {rt['p99_us']} µs"
        " (target median < 150 µs)"
    )
    print(
        f"heads-up duplicate, {2 * DEALS} deals: sandboxed {sandboxed['deals_per_second']} deals/s"
        f" (+{sandboxed['load_seconds']} s to load 4 bots),"
        f" in-process {in_process['deals_per_second']} deals/s"
    )
    figures["event"] = event_ratio(rt["median_us"])
    return figures


if __name__ == "__main__":
    run()
