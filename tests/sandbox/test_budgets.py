"""Budgets per bot: memory, processes and CPU count for the bot's whole process tree,
under each budget this machine offers (a cgroup of its own, or the dealer's watchdog).
A bot over its budget is a ``CRASH`` of that bot, and the table goes on; its groups are
removed when its seat closes, and those a killed dealer left are removed by the next.
"""

from __future__ import annotations

import gc
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dp_arena.results import FaultKind
from dp_arena.sandbox import isolation as sandbox_isolation
from dp_arena.sandbox.confinement import budget as budget_module
from dp_arena.sandbox.confinement.budget import budget_support, new_budget
from dp_arena.sandbox.confinement.isolation import detect

from .conftest import HOSTILE, LIMITS, REPO, assert_nothing_left, play_mirrored
from .test_hostile import check_everyone_else, class_bot, hostile_faults

BUDGETS = ["cgroup2", "cgroup1", "watchdog"]


@pytest.fixture
def budget_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Run the test under the budget given as its parameter, if this machine has it."""
    kind = request.param
    monkeypatch.setenv("DP_ARENA_BUDGET", kind)
    budget_support.cache_clear()
    detect.cache_clear()
    found = budget_support()
    if found.kind != kind:
        budget_support.cache_clear()
        pytest.skip(f"no {kind} budget on this machine: {found.problem}")
    yield kind
    budget_support.cache_clear()
    detect.cache_clear()


@pytest.fixture(autouse=True)
def no_spares() -> None:
    """No spare seats of earlier tests' events: each holds groups of this dealer's."""
    from dp_arena.sandbox.dealer.spawn import SPARES

    SPARES.clear()


def our_groups() -> list[str]:
    """This dealer's groups in every hierarchy it uses (empty for the watchdog)."""
    found = []
    for _, base in budget_support().bases:
        prefix = f"{os.getpid()}-"
        found += [name for name in os.listdir(base) if name.startswith(prefix)]
    return found


# Each process stays far under its own 512 MiB limit; the tree of three children does not.
TREE_HOG = LIMITS.with_changes(memory_bytes=512 * 1024 * 1024, action_timeout=30.0)


@pytest.mark.parametrize("budget_kind", BUDGETS, indirect=True)
def test_memory_counts_for_the_whole_process_tree(budget_kind: str) -> None:
    results, seats = play_mirrored(class_bot(HOSTILE / "tree_hog", limits=TREE_HOG))
    faults = [fault for result in results for fault in result.faults]
    assert hostile_faults(results) == [FaultKind.CRASH, FaultKind.CRASH], faults
    assert all("over its memory budget of 512 MiB" in fault.detail for fault in faults), faults
    assert all(budget_kind in fault.detail for fault in faults)
    check_everyone_else(results)
    assert_nothing_left(seats)
    assert our_groups() == []


# Three children spin; the bot answers slowly enough that they burn its 2 CPU seconds.
TREE_SPINNER = LIMITS.with_changes(cpu_seconds=2, action_timeout=20.0)


@pytest.mark.parametrize("budget_kind", BUDGETS, indirect=True)
def test_cpu_time_counts_for_the_whole_process_tree(budget_kind: str) -> None:
    results, seats = play_mirrored(class_bot(HOSTILE / "tree_spinner", limits=TREE_SPINNER))
    faults = [fault for result in results for fault in result.faults]
    assert hostile_faults(results) == [FaultKind.CRASH, FaultKind.CRASH], faults
    assert all("over its CPU budget of 2 s" in fault.detail for fault in faults), faults
    check_everyone_else(results)
    assert_nothing_left(seats)
    assert our_groups() == []


@pytest.mark.parametrize("budget_kind", ["cgroup2", "cgroup1"], indirect=True)
def test_a_fork_bomb_stops_at_the_trees_process_budget(budget_kind: str) -> None:
    """The group's process count bounds the tree even where the uid's would not."""
    results, seats = play_mirrored(class_bot(HOSTILE / "forkbomb"))
    faults = [fault for result in results for fault in result.faults]
    forked = [int(fault.detail.split("forked ")[1].split()[0]) for fault in faults]
    assert forked and max(forked) < LIMITS.processes
    assert_nothing_left(seats)
    assert our_groups() == []


@pytest.mark.parametrize("budget_kind", ["cgroup2", "cgroup1"], indirect=True)
@pytest.mark.parametrize("sandbox_mode", ["bubblewrap"], indirect=True)
def test_the_trees_process_budget_is_the_bots_processes_and_the_sandboxs_own(
    budget_kind: str, sandbox_mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pids.max`` is the bot's ``processes`` plus the sandbox's own processes in the
    tree, counted here with a bot of one process: the init alone for a seat forked from a
    template, bubblewrap's two for an exec'd one. Neither leaves the bot more."""
    from dp_arena.sandbox import open_seat
    from dp_arena.sandbox.dealer.forked import ForkedProcess
    from dp_arena.sandbox.dealer.process import ProcessSeat

    tag = f"{REPO / 'agents' / 'tag.py'}:TightAggressiveBot"
    kinds = [("exec", budget_module.LAUNCHER_TASKS)]
    if sandbox_isolation().seats == "fork":
        kinds.insert(0, ("fork", budget_module.FORKED_TASKS))
    for seats, sandbox_tasks in kinds:
        monkeypatch.setenv("DP_ARENA_SEATS", seats)
        detect.cache_clear()
        seat = open_seat(tag, name="tag", limits=LIMITS)
        try:
            assert isinstance(seat, ProcessSeat) and seat.wait_loaded() is None
            assert isinstance(seat.process, ForkedProcess) == (seats == "fork")
            assert seat.sandbox is not None
            paths = seat.sandbox.budget.paths  # type: ignore[attr-defined]
            group = Path(paths["pids" if budget_kind == "cgroup1" else ""])
            assert int((group / "pids.max").read_text()) == LIMITS.processes + sandbox_tasks
            assert int((group / "pids.current").read_text()) == sandbox_tasks + 1
        finally:
            seat.close()
        assert_nothing_left([seat])
    detect.cache_clear()


@pytest.mark.parametrize("budget_kind", ["cgroup2", "cgroup1"], indirect=True)
def test_seats_give_back_their_groups_whatever_became_of_their_bot(
    budget_kind: str, tmp_path: Path
) -> None:
    never = class_bot(HOSTILE / "never_loads", limits=LIMITS.with_changes(load_timeout=1.0))
    fine = class_bot(HOSTILE / "victim")
    crashing = class_bot(HOSTILE / "tree_hog", limits=TREE_HOG)
    seats = [make() for make in (never, fine, crashing) for _ in range(3)]
    assert len(our_groups()) == len(seats) * len(budget_support().bases)
    try:
        results, more = play_mirrored(crashing)
    finally:
        for seat in seats:
            seat.close()
    assert set(hostile_faults(results)) == {FaultKind.CRASH}
    assert_nothing_left(seats + more)
    assert our_groups() == []
    forgotten = fine()  # a seat nobody closes gives its groups back when it is dropped
    assert our_groups() != []
    del forgotten
    gc.collect()
    assert our_groups() == []


@pytest.mark.parametrize("budget_kind", ["cgroup2", "cgroup1"], indirect=True)
def test_groups_a_killed_dealer_left_are_removed_by_the_next(
    budget_kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()  # a dealer pid that is no longer running
    stale = [os.path.join(base, f"{dead.pid}-7") for _, base in budget_support().bases]
    for path in stale:
        os.mkdir(path)
    leftover = subprocess.Popen(
        ["/bin/sh", "-c", f"echo $$ > {stale[0]}/cgroup.procs && exec sleep 600"]
    )
    try:
        deadline = time.monotonic() + 30
        while str(leftover.pid) not in Path(stale[0], "cgroup.procs").read_text().split():
            assert leftover.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        monkeypatch.setattr(budget_module, "_stale_swept", set())
        fresh = new_budget(LIMITS)  # the next dealer's first budget sweeps
        fresh.remove()
        assert not any(os.path.exists(path) for path in stale)
        assert leftover.wait(10) == -9
    finally:
        leftover.kill()
        leftover.wait()
        for path in stale:
            if os.path.exists(path):
                os.rmdir(path)


@pytest.mark.parametrize("budget_kind", BUDGETS, indirect=True)
def test_the_isolation_summary_says_which_budget_is_active(budget_kind: str) -> None:
    active = sandbox_isolation()
    assert active.to_json()["budget"] == budget_kind
    line = next(line for line in active.describe() if "whole process tree" in line)
    assert line.split(": ", 1)[1].startswith(budget_kind)


@pytest.mark.parametrize("budget_kind", ["cgroup2", "cgroup1"], indirect=True)
def test_thousands_of_bot_processes_leave_no_group_behind(budget_kind: str) -> None:
    """The start and end of a seat's process, 2,000 times, without the seat around it."""
    from dp_arena.sandbox.confinement.command import SandboxCommand
    from dp_arena.sandbox.dealer.spawn import spawn

    command = SandboxCommand(("/bin/sh", "-c", "exit 3"), {}, "/", None)
    for _ in range(2000):
        bot = spawn(command, LIMITS)
        bot.process.communicate()
        assert bot.process.returncode == 3  # it ran, inside its groups
        bot.kill()
        bot.release()
    assert our_groups() == []


def test_a_cgroup2_budget_writes_its_limits_and_reads_its_verdicts(tmp_path: Path) -> None:
    """The cgroup v2 files, on a stand-in folder (this machine may have no cgroup v2
    controllers): the limits written, the verdicts read from cpu.stat and memory.events."""
    from dp_arena.sandbox.confinement.budget import _CgroupBudget

    limits = LIMITS.with_changes(memory_bytes=256 * 1024 * 1024, cpu_seconds=2, processes=20)
    budget = _CgroupBudget("cgroup2", {"": str(tmp_path)}, limits, "4242-1")
    group = tmp_path / "4242-1"
    assert (group / "memory.max").read_text() == str(256 * 1024 * 1024)
    assert (group / "pids.max").read_text() == str(20 + budget_module.LAUNCHER_TASKS)
    assert budget.procs_files() == [str(group / "cgroup.procs")]
    (group / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1000000\n")
    (group / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 0\noom_kill 0\n")
    assert budget.check() is None
    (group / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\n")
    assert "over its CPU budget of 2 s" in str(budget.check())
    (group / "memory.events").write_text("low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\n")
    assert "over its memory budget of 256 MiB" in str(budget.check())


def test_a_program_that_cannot_start_is_a_load_error_and_leaves_no_group() -> None:
    """Here the sandbox itself fails to start (its working directory is gone)."""
    from dp_arena.sandbox.confinement.command import SandboxCommand
    from dp_arena.sandbox.dealer.process import ProcessSeat

    command = SandboxCommand(("/bin/true",), {}, "/no/such/folder", None)
    seat = ProcessSeat(command, name="hostile", limits=LIMITS)
    fault = seat.wait_loaded()
    seat.close()
    assert fault is not None and fault.kind is FaultKind.LOAD_ERROR
    assert "cannot start" in fault.detail
    assert our_groups() == []
