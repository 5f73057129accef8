"""Shared helpers of the sandbox tests: hostile bots, tables against a reference bot,
and the check that no process is left behind."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dp_arena.agents import (
    AbsentSeat,
    InProcessSeat,
    Seat,
    SessionContext,
    TableSession,
    load_agent,
    play_table_session,
)
from dp_arena.engine import Betting, TableRules
from dp_arena.results import TableSessionResult
from dp_arena.sandbox import isolation as sandbox_isolation
from dp_arena.sandbox.confinement.isolation import detect
from dp_arena.sandbox.confinement.processes import uid_processes
from dp_arena.sandbox.dealer.spawn import kept_processes
from dp_arena.sandbox.limits import Limits

HOSTILE = Path(__file__).resolve().parent / "hostile_bots"
REPO = Path(__file__).resolve().parents[2]
# Generous: the 2-core box is shared and noisy. Tests assert fault kinds, never times.
LIMITS = Limits(action_timeout=1.0, time_bank=1.0, load_timeout=30.0)
RULES = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT, cap=1000)


def reference_seat(name: str = "station") -> Seat:
    return InProcessSeat(
        load_agent(str(REPO / "agents" / "calling_station.py") + ":CallingStation"), name
    )


def play(
    seats: list[Seat], *, deals: int = 6, table_index: int = 0, rules: TableRules = RULES
) -> TableSessionResult:
    table = TableSession(seats, [seat.name for seat in seats])
    return play_table_session(
        table,
        rules,
        event_seed=7,
        section=0,
        session=0,
        deals=deals,
        context=SessionContext(event="hostile"),
        table_index=table_index,
    )


def play_mirrored(
    make_hostile: Callable[[], Seat], *, deals: int = 6
) -> tuple[list[TableSessionResult], list[Seat]]:
    """The hostile bot at two mirrored tables: seat 0 at table 0, seat 1 at table 1, both
    copies started before either table plays, against the in-process calling station."""
    first, second = make_hostile(), make_hostile()
    try:
        results = [
            play([first, reference_seat()], deals=deals, table_index=0),
            play([reference_seat(), second], deals=deals, table_index=1),
        ]
    finally:
        first.close()
        second.close()
    return results, [first, second]


def as_if_absent(result: TableSessionResult, hostile_seat: int, deals: int = 6) -> None:
    """The other player's results are exactly those against an absent player: every
    fault became a check-or-fold, as an absent player plays (docs/rules.md)."""
    seats: list[Seat] = [reference_seat(), reference_seat()]
    seats[hostile_seat] = AbsentSeat("absent")
    expected = play(seats, deals=deals, table_index=result.table)
    assert [deal.nets for deal in result.deals] == [deal.nets for deal in expected.deals]
    assert all(sum(deal.nets) == 0 for deal in result.deals)


def descendants(root: int) -> list[int]:
    """Live processes below ``root`` in the process tree (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if fields[0] in (b"Z", b"X"):
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    found, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def assert_nothing_left(seats: list[Seat], *, timeout: float = 10.0) -> None:
    """No process of any of these sandboxed bots is alive, and this test process has no
    child left but the ones it keeps on purpose (its warm templates, and spare seats
    made ahead, in which no bot code has run); the kill is asynchronous: allow it a
    moment."""
    uids = [seat.command.uid for seat in seats if getattr(seat, "command", None) is not None]
    deadline = time.monotonic() + timeout
    while True:
        leftover = [pid for uid in uids if uid is not None for pid in uid_processes(uid)]
        kept = kept_processes()
        leftover += [pid for pid in descendants(os.getpid()) if pid not in kept]
        if not leftover or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert leftover == [], f"processes left behind: {leftover}"


def copy_bot(name: str, destination: Path) -> Path:
    folder = destination / name
    shutil.copytree(HOSTILE / name, folder)
    return folder


def namespace_modes() -> list[str]:
    """The namespace modes that work on this machine (each probed once)."""
    modes = []
    for mode in ("bubblewrap", "unshare"):
        previous = os.environ.get("DP_ARENA_SANDBOX")
        os.environ["DP_ARENA_SANDBOX"] = mode
        detect.cache_clear()
        try:
            if detect().mode == mode:
                modes.append(mode)
        finally:
            if previous is None:
                del os.environ["DP_ARENA_SANDBOX"]
            else:
                os.environ["DP_ARENA_SANDBOX"] = previous
            detect.cache_clear()
    return modes


@pytest.fixture
def sandbox_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Run the test under the isolation mode given as its parameter."""
    mode = request.param
    monkeypatch.setenv("DP_ARENA_SANDBOX", mode)
    detect.cache_clear()
    if sandbox_isolation().mode != mode:
        detect.cache_clear()
        pytest.skip(
            f"the {mode} sandbox does not work on this machine: {sandbox_isolation().warning}"
        )
    yield mode
    detect.cache_clear()


PYTHON = sys.executable
