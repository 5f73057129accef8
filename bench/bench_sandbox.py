"""Sandbox benchmark: the decision round trip of a sandboxed trivial bot (median and
p99, target median < 150 µs), and deals per second of a heads-up duplicate session of
sandboxed trivial bots against the same bots in-process."""

from __future__ import annotations

import statistics
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
    return figures


if __name__ == "__main__":
    run()
