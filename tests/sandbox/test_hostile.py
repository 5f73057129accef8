"""Hostile bots: each is handled as the sandbox promises while the table-sessions
complete with the right results for everyone else, and no process is left behind.

Each bot plays at two mirrored tables (both copies alive at once) against the
in-process calling station. A bot that faults at every decision must leave the other
player exactly the results it would have against an absent player (docs/rules.md): the
table substituted a check-or-fold for every faulty decision, then benched the bot.
Deadlines are generous and the tests assert fault kinds, not times.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from dp_arena.cli import main
from dp_arena.results import FaultKind, TableSessionResult
from dp_arena.sandbox import open_seat
from dp_arena.sandbox.confinement.isolation import detect
from dp_arena.sandbox.protocol import MAX_DEPTH

from .conftest import (
    HOSTILE,
    LIMITS,
    PYTHON,
    as_if_absent,
    assert_nothing_left,
    copy_bot,
    play_mirrored,
)

NAMESPACE_MODES = ["bubblewrap", "unshare"]
# The fallback's own run of the costlier isolation tests is a scale test (make test-slow);
# the default suite still runs the fallback through the network and setsid tests.
NAMESPACE_MODES_FAST = ["bubblewrap", pytest.param("unshare", marks=pytest.mark.slow)]


def class_bot(folder: Path, *, limits=LIMITS, name: str = "hostile"):  # type: ignore[no-untyped-def]
    return lambda: open_seat(f"{folder / 'bot.py'}:Bot", name=name, limits=limits)


def pipe_bot(folder: Path, *, limits=LIMITS, name: str = "hostile"):  # type: ignore[no-untyped-def]
    return lambda: open_seat(f"{PYTHON} -I {folder / 'bot.py'}", name=name, limits=limits)


def hostile_faults(results: list[TableSessionResult]) -> list[FaultKind]:
    return [
        fault.kind for result in results for fault in result.faults if fault.player == "hostile"
    ]


def check_everyone_else(results: list[TableSessionResult]) -> None:
    for table_index, result in enumerate(results):
        as_if_absent(result, hostile_seat=table_index)
        assert all(fault.player == "hostile" for fault in result.faults)


def benched(results: list[TableSessionResult]) -> bool:
    return all(table_index in result.absent_seats for table_index, result in enumerate(results))


# For bots that never answer, short deadlines cannot turn a good answer into a fault.
NEVER_ANSWERS = LIMITS.with_changes(action_timeout=0.3, time_bank=0.3)


def test_sleeping_forever_times_out() -> None:
    results, seats = play_mirrored(class_bot(HOSTILE / "sleeper", limits=NEVER_ANSWERS))
    assert set(hostile_faults(results)) == {FaultKind.TIMEOUT}
    assert benched(results)
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_raising_is_an_error_and_names_the_exception() -> None:
    results, seats = play_mirrored(class_bot(HOSTILE / "raiser"))
    faults = [fault for result in results for fault in result.faults]
    assert {fault.kind for fault in faults} == {FaultKind.ERROR}
    assert any("begin_session exploded" in fault.detail for fault in faults)
    assert any("ValueError: act exploded" in fault.detail for fault in faults)
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_illegal_actions_are_refused_by_the_table() -> None:
    results, seats = play_mirrored(class_bot(HOSTILE / "illegal"))
    assert set(hostile_faults(results)) == {FaultKind.ILLEGAL}
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_malformed_replies_are_protocol_faults() -> None:
    results, seats = play_mirrored(pipe_bot(HOSTILE / "malformed", limits=NEVER_ANSWERS))
    assert set(hostile_faults(results)) == {FaultKind.PROTOCOL}
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_a_malformed_answer_from_a_python_class_is_a_protocol_fault(tmp_path: Path) -> None:
    folder = tmp_path / "dancer"
    folder.mkdir()
    (folder / "bot.py").write_text(
        "class Bot:\n    def act(self, observation):\n        return 'dance'\n"
    )
    results, seats = play_mirrored(class_bot(folder))
    assert set(hostile_faults(results)) == {FaultKind.PROTOCOL}
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_stale_replies_are_protocol_faults() -> None:
    results, seats = play_mirrored(pipe_bot(HOSTILE / "stale"))
    faults = [fault for result in results for fault in result.faults]
    assert {fault.kind for fault in faults} == {FaultKind.PROTOCOL}
    assert all("stale" in fault.detail for fault in faults)
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_a_10_mib_message_is_a_protocol_fault() -> None:
    results, seats = play_mirrored(pipe_bot(HOSTILE / "bigmouth"))
    faults = [fault for result in results for fault in result.faults]
    assert {fault.kind for fault in faults} == {FaultKind.PROTOCOL}
    assert all("over" in fault.detail for fault in faults)
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_allocating_10_gb_fails_inside_the_bot() -> None:
    results, seats = play_mirrored(class_bot(HOSTILE / "hog"))
    faults = [fault for result in results for fault in result.faults]
    assert {fault.kind for fault in faults} == {FaultKind.ERROR}
    assert all("MemoryError" in fault.detail for fault in faults)
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_spinning_the_cpu_times_out() -> None:
    results, seats = play_mirrored(class_bot(HOSTILE / "spinner", limits=NEVER_ANSWERS))
    assert set(hostile_faults(results)) == {FaultKind.TIMEOUT}
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_the_cpu_limit_is_a_backstop_that_kills_a_spinning_bot() -> None:
    limits = LIMITS.with_changes(cpu_seconds=1, action_timeout=20.0, time_bank=1.0)
    results, seats = play_mirrored(class_bot(HOSTILE / "spinner", limits=limits))
    assert set(hostile_faults(results)) == {FaultKind.CRASH}
    assert all(
        "SIGXCPU" in fault.detail or "SIGKILL" in fault.detail
        for result in results
        for fault in result.faults
    )
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_flooding_stdout_is_a_protocol_fault_and_does_not_stall_the_table() -> None:
    results, seats = play_mirrored(pipe_bot(HOSTILE / "flooder"))
    assert set(hostile_faults(results)) == {FaultKind.PROTOCOL}
    assert benched(results)
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_a_pickle_is_a_protocol_fault() -> None:
    results, seats = play_mirrored(pipe_bot(HOSTILE / "pickler", limits=NEVER_ANSWERS))
    assert set(hostile_faults(results)) == {FaultKind.PROTOCOL}
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_deep_nesting_is_a_protocol_fault_and_the_table_goes_on() -> None:
    """400 KB of nested lists (under the message limit) as every answer and between
    requests: refused before the recursive parser sees it, a PROTOCOL fault each time."""
    results, seats = play_mirrored(pipe_bot(HOSTILE / "deep_nesting"))
    faults = [fault for result in results for fault in result.faults]
    assert {fault.kind for fault in faults} == {FaultKind.PROTOCOL}
    assert all(f"nested more than {MAX_DEPTH} levels deep" in fault.detail for fault in faults)
    assert any(fault.street is not None for fault in faults)  # as the answer to a request
    assert benched(results)
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_deep_nesting_cannot_stop_dp_arena_match(capsys: pytest.CaptureFixture[str]) -> None:
    bot = f"{PYTHON} -I {HOSTILE / 'deep_nesting' / 'bot.py'}"
    assert main(["match", bot, "calling-station", "--deals", "4", "--seed", "3", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert f"nested more than {MAX_DEPTH} levels deep" in captured.out
    assert "PROTOCOL" in captured.out and "Traceback" not in captured.err


def test_deep_nesting_cannot_stop_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The event plays to the end and writes its results; the bot's faults are in them."""
    bot = HOSTILE / "deep_nesting" / "bot.py"
    config = tmp_path / "event.toml"
    config.write_text(
        '[event]\nname = "nesting"\nformat = "regular"\nseed = 5\n\n'
        '[field]\ncount = 5\nfrom = ["random", "calling-station"]\n\n'
        f'[[entrants]]\nname = "nester"\nagent = "{PYTHON} -I {bot}"\n'
    )
    run_dir = tmp_path / "run"
    arguments = ["run", str(config), "--run-dir", str(run_dir), "--quiet", "--executor", "serial"]
    assert main(arguments) == 0
    assert "Traceback" not in capsys.readouterr().err
    results = json.loads((run_dir / "results.json").read_text())
    faults = [fault for fault in results["faults"] if fault["player"] == "nester"]
    assert faults and {fault["kind"] for fault in faults} == {"PROTOCOL"}
    assert all("nested more than" in fault["detail"] for fault in faults)
    assert len(results["standings"]) == 6


def test_never_finishing_loading_is_a_load_timeout() -> None:
    limits = LIMITS.with_changes(load_timeout=2.0)
    results, seats = play_mirrored(class_bot(HOSTILE / "never_loads", limits=limits))
    assert hostile_faults(results) == [FaultKind.LOAD_TIMEOUT, FaultKind.LOAD_TIMEOUT]
    assert benched(results)
    check_everyone_else(results)
    assert_nothing_left(seats)


# -- isolation: these depend on the namespaces, and run under each mode that works here ----


@pytest.fixture
def loopback_listener() -> Iterator[tuple[int, list[bytes]]]:
    """A listener on the host's 127.0.0.1, recording whatever connects."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    received: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            with connection:
                received.append(connection.recv(100) or b"(connected)")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], received
    stop.set()
    thread.join()
    server.close()


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES, indirect=True)
def test_the_hosts_loopback_is_unreachable(
    sandbox_mode: str, tmp_path: Path, loopback_listener: tuple[int, list[bytes]]
) -> None:
    port, received = loopback_listener
    folder = copy_bot("networker", tmp_path)
    (folder / "port.txt").write_text(str(port))
    results, seats = play_mirrored(class_bot(folder))
    faults = [fault for result in results for fault in result.faults]
    assert faults and all("network blocked" in fault.detail for fault in faults), faults
    assert received == []
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_without_isolation_the_loopback_is_reachable_so_the_test_above_means_something(
    tmp_path: Path, loopback_listener: tuple[int, list[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    port, received = loopback_listener
    folder = copy_bot("networker", tmp_path)
    (folder / "port.txt").write_text(str(port))
    monkeypatch.setenv("DP_ARENA_SANDBOX", "none")
    detect.cache_clear()
    try:
        results, seats = play_mirrored(class_bot(folder))
    finally:
        detect.cache_clear()
    assert any("network REACHED" in fault.detail for result in results for fault in result.faults)
    assert received and received[0] == b"escaped\n"
    assert_nothing_left(seats)


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES_FAST, indirect=True)
def test_another_bots_files_cannot_be_read(sandbox_mode: str, tmp_path: Path) -> None:
    victim = copy_bot("victim", tmp_path)
    folder = copy_bot("snoop", tmp_path)
    (folder / "target.txt").write_text(str(victim / "secret.txt"))
    results, seats = play_mirrored(class_bot(folder))
    faults = [fault for result in results for fault in result.faults]
    assert faults and all("read blocked" in fault.detail for fault in faults), faults
    check_everyone_else(results)
    assert_nothing_left(seats)


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES_FAST, indirect=True)
def test_mirrored_copies_cannot_see_each_others_markers(sandbox_mode: str, tmp_path: Path) -> None:
    folder = copy_bot("marker", tmp_path)
    results, seats = play_mirrored(class_bot(folder))
    faults = [fault for result in results for fault in result.faults]
    assert faults and all("RuntimeError: alone" in fault.detail for fault in faults), faults
    assert not (folder / "marker").exists()  # its own folder is read-only
    check_everyone_else(results)
    assert_nothing_left(seats)


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES_FAST, indirect=True)
def test_a_fork_bomb_is_contained(sandbox_mode: str) -> None:
    results, seats = play_mirrored(class_bot(HOSTILE / "forkbomb"))
    faults = [fault for result in results for fault in result.faults]
    assert faults and {fault.kind for fault in faults} <= {FaultKind.ERROR, FaultKind.TIMEOUT}
    forked = [
        int(fault.detail.split("forked ")[1].split()[0])
        for fault in faults
        if "forked" in fault.detail
    ]
    assert forked and max(forked) < LIMITS.processes
    check_everyone_else(results)
    assert_nothing_left(seats)


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES, indirect=True)
def test_setsid_children_are_killed_with_the_bot(sandbox_mode: str) -> None:
    results, seats = play_mirrored(class_bot(HOSTILE / "orphan"))
    assert results[0].faults == () and results[1].faults == ()
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_a_process_named_like_a_status_line_is_still_found_by_its_real_uid() -> None:
    """A bot sets its own process name, and the kernel keeps \\x1c-\\x1e in it: named
    "x\\x1cUid:\\t4242", a process must still be found (and killed) under its real uid and
    counted in its parent's tree."""
    from dp_arena.sandbox.confinement.processes import proc_table, uid_processes

    program = (
        "import ctypes, sys, time\n"
        "ctypes.CDLL(None).prctl(15, b'x\\x1cUid:\\t4242', 0, 0, 0)\n"
        "print('named', flush=True)\n"
        "time.sleep(30)\n"
    )
    child = subprocess.Popen([PYTHON, "-c", program], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"named\n"
        with open(f"/proc/{child.pid}/status", "rb") as status:
            assert b"\x1cUid:\t4242" in status.read()  # the name is in the file as set
        assert child.pid in uid_processes(os.getuid())
        assert child.pid not in uid_processes(4242)
        assert proc_table()[child.pid][:2] == (os.getpid(), os.getuid())
    finally:
        child.kill()
        child.wait()
        assert child.stdout is not None
        child.stdout.close()
