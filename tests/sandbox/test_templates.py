"""Seats forked from a warm template of the bot's sandbox: each is still a process tree of
its own that shares nothing with its mirrored copy, its template or the seats before it.

Hostile bots look for everything a fork could hand over (file descriptors, capabilities,
the uid, limits, namespaces, random state, the template's memory and modules) and for
every channel two seats of one template could share; the control runs the same bots
without isolation, where the channels are there, so that the tests mean something.
Forked and exec'd seats give the same results. Deadlines are generous; the tests assert
what the bots report and fault kinds, never times.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from dp_arena.agents import SessionContext
from dp_arena.results import FaultKind
from dp_arena.sandbox import isolation, open_seat, prepare
from dp_arena.sandbox.confinement.isolation import detect
from dp_arena.sandbox.confinement.processes import proc_table, uid_processes
from dp_arena.sandbox.confinement.uids import sweeping
from dp_arena.sandbox.dealer import template as template_module
from dp_arena.sandbox.dealer.forked import ForkedProcess
from dp_arena.sandbox.dealer.process import ProcessSeat
from dp_arena.sandbox.dealer.spawn import MONITOR, SPARES

from .conftest import LIMITS, assert_nothing_left, copy_bot, play, play_mirrored
from .test_hostile import NAMESPACE_MODES, check_everyone_else, class_bot

REPO = Path(__file__).resolve().parents[2]
TAG = f"{REPO / 'agents' / 'tag.py'}:TightAggressiveBot"


@pytest.fixture
def forking(sandbox_mode: str) -> Iterator[str]:
    """The namespace mode of the test, with seats forked from templates there."""
    if isolation().seats != "fork":
        pytest.skip("seats are not forked from templates here (not root, or no namespaces)")
    yield sandbox_mode


def _facts(log_dir: Path) -> list[dict]:  # type: ignore[type-arg]
    facts = []
    for log in sorted(log_dir.glob("*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("FACTS "):
                facts.append(json.loads(line[len("FACTS ") :]))
    return facts


def _inspect_mirrored(folder: Path, log_dir: Path) -> list[dict]:  # type: ignore[type-arg]
    results, seats = play_mirrored(
        lambda: open_seat(
            f"{folder / 'bot.py'}:Bot", name="hostile", limits=LIMITS, log_dir=log_dir
        )
    )
    assert all(isinstance(seat, ProcessSeat) for seat in seats)
    assert all(isinstance(seat.process, ForkedProcess) for seat in seats)  # type: ignore[attr-defined]
    assert not [fault for result in results for fault in result.faults]
    assert_nothing_left(seats)
    facts = _facts(log_dir)
    assert len(facts) == 2
    return facts


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES, indirect=True)
def test_a_forked_seat_holds_nothing_of_its_template(forking: str, tmp_path: Path) -> None:
    """Only its three pipes (and the runner's copy of stdout), no capability of the
    template's, its own uid, the limits, the filter, a PID namespace holding its init
    and itself, and a fresh /tmp and /dev/pts."""
    folder = copy_bot("inspector", tmp_path)
    for facts in _inspect_mirrored(folder, tmp_path / "logs"):
        fds = facts["fds"]
        assert set(fds) <= {"0", "1", "2", "3"}, fds
        assert all(target.startswith("pipe:") for target in fds.values()), fds
        status = facts["status"]
        for capabilities in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
            assert int(status[capabilities], 16) == 0, status
        assert status["NoNewPrivs"] == "1"
        assert status["Seccomp"] == ("2" if isolation().syscall_filter else "0")
        uid = facts["uid"]
        assert uid >= 2_000_000
        assert status["Uid"].split() == [str(uid)] * 4
        assert status["Gid"].split() == [str(uid)] * 4
        assert status.get("Groups", "") == ""
        assert facts["limits"]["RLIMIT_AS"] == [LIMITS.memory_bytes] * 2
        assert facts["limits"]["RLIMIT_NOFILE"] == [LIMITS.open_files] * 2
        assert facts["limits"]["RLIMIT_NPROC"] == [LIMITS.processes] * 2
        assert facts["limits"]["RLIMIT_CPU"] == [LIMITS.cpu_seconds, LIMITS.cpu_seconds + 1]
        assert facts["limits"]["RLIMIT_CORE"] == [0, 0]
        assert facts["pids"] == [1, 2] and facts["pid"] == 2 and facts["ppid"] == 1
        assert facts["pts"] in ([], ["ptmx"])
        assert facts["loadavg"] == "0.00 0.00 0.00 1/1 1\n"
        # Its cgroups are its seat's own: the root of its cgroup namespace.
        memory = [line for line in facts["cgroup"] if ":memory:" in line]
        assert all(line.endswith(":/") for line in memory), facts["cgroup"]
        assert "_serve" not in facts["main"]  # __main__ is the runner's, not the zygote's


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES, indirect=True)
def test_mirrored_copies_forked_from_one_template_share_nothing_of_it(
    forking: str, tmp_path: Path
) -> None:
    """Different uids, namespaces and random draws; the same template behind both."""
    folder = copy_bot("inspector", tmp_path)
    first, second = _inspect_mirrored(folder, tmp_path / "logs")
    assert first["uid"] != second["uid"]
    assert first["random"] != second["random"]  # reseeded after the fork
    for name in ("mnt", "pid", "net", "ipc", "uts", "cgroup"):
        assert first["namespaces"][name] != second["namespaces"][name], name
    plans = [plan for plan in template_module._templates if str(folder) in plan.runner_args[0]]
    assert len(plans) == 1  # both forked from one template


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES, indirect=True)
def test_a_template_imports_the_projects_modules_its_bot_names_and_nothing_of_the_bots(
    forking: str, tmp_path: Path
) -> None:
    """A bot's file that imports dp-arena's policy bot finds it (and NumPy) loaded by its
    template; a file of its own folder under dp-arena's name, which would end any process
    that ran it, runs nowhere (the template still forks both seats); and NumPy's global
    generator draws differently in each seat (made there: the template's imports do not
    make it; were they to, each seat reseeds it)."""
    folder = copy_bot("preloader", tmp_path)
    first, second = _inspect_mirrored(folder, tmp_path / "logs")
    for facts in (first, second):
        assert facts["loaded"] == ["dp_arena.learn.bot", "numpy"]
        assert facts["planted"] == "not found"
    assert first["numpy"] != second["numpy"]


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES, indirect=True)
def test_no_channel_between_seats_of_one_template(forking: str, tmp_path: Path) -> None:
    """Abstract sockets, loopback ports, System V IPC, pseudo-terminals, /tmp and the
    template's modules: each copy finds none of the other's."""
    folder = copy_bot("channels", tmp_path)
    results, seats = play_mirrored(class_bot(folder))
    faults = [fault for result in results for fault in result.faults]
    assert faults and all("RuntimeError: alone" in fault.detail for fault in faults), faults
    # A third copy, forked after both ended, finds nothing of them either.
    later = play([class_bot(folder)(), _station()])
    assert later.faults and all("alone" in fault.detail for fault in later.faults)
    check_everyone_else(results)
    assert_nothing_left(seats)


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES, indirect=True)
def test_every_seat_is_pid_1_of_a_namespace_of_its_own_and_the_template_keeps_its_own(
    forking: str,
) -> None:
    """The template makes each seat's init in a new PID namespace, then makes its own
    children in its own namespace again: seats forked one after another, alive at once,
    never share one, and each is two processes, the init (pid 1) and the bot (pid 2)."""
    seats = [open_seat(TAG, name="tag", limits=LIMITS) for _ in range(3)]
    try:
        for seat in seats:
            assert isinstance(seat, ProcessSeat) and seat.wait_loaded() is None
            assert isinstance(seat.process, ForkedProcess)
        inits = [seat.process.pid for seat in seats]  # type: ignore[attr-defined]
        table = proc_table()
        (zygote,) = {table[pid][0] for pid in inits}  # one template made all three
        own = os.readlink(f"/proc/{zygote}/ns/pid")
        assert os.readlink(f"/proc/{zygote}/ns/pid_for_children") == own
        spaces = [os.readlink(f"/proc/{pid}/ns/pid") for pid in inits]
        assert len(set(spaces)) == 3 and own not in spaces
        for init, space in zip(inits, spaces, strict=True):
            assert _namespace_pid(init) == 1
            (bot,) = [pid for pid, (parent, _, _) in table.items() if parent == init]
            assert _namespace_pid(bot) == 2 and os.readlink(f"/proc/{bot}/ns/pid") == space
            assert [pid for pid, (parent, _, _) in table.items() if parent == bot] == []
    finally:
        for seat in seats:
            seat.close()
    assert_nothing_left(seats)


def _namespace_pid(pid: int) -> int:
    """``pid``'s number in its own PID namespace (the last of its NSpid line)."""
    with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
        line = next(line for line in status if line.startswith("NSpid:"))
    return int(line.split()[-1])


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES, indirect=True)
def test_a_seat_killed_through_its_init_is_empty_when_it_is_reported_gone(
    forking: str, tmp_path: Path
) -> None:
    """A bot whose child and grandchild take sessions of their own, clear their
    parent-death signals and ignore or block every signal they can: the dealer's kill
    (SIGKILL to the init's pidfd, nothing else: no cgroup kill, no uid sweep) ends them
    all, and the seat is reported gone only once not even a zombie of them is left."""
    folder = copy_bot("survivor", tmp_path)
    seat = open_seat(
        f"{folder / 'bot.py'}:Bot", name="hostile", limits=LIMITS, log_dir=tmp_path / "logs"
    )
    assert isinstance(seat, ProcessSeat) and isinstance(seat.process, ForkedProcess)
    process = seat.process
    uid = seat.command.uid
    assert uid is not None and seat.wait_loaded() is None
    try:
        assert seat.begin_session(SessionContext(event="hostile")) is None
        deadline = time.monotonic() + 30
        while len(_of_uid(uid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(_of_uid(uid)) == 3, _of_uid(uid)  # the bot, its child, its grandchild
        process.kill()
        assert process.wait_gone(10)
        assert _of_uid(uid) == []  # what the kernel did: nobody swept the uid yet
        assert uid not in sweeping
        assert process.wait(1) == -signal.SIGKILL
    finally:
        seat.close()
    log = next((tmp_path / "logs").glob("*.log")).read_text()
    assert "SURVIVOR child" in log and "SURVIVOR grandchild" in log
    assert_nothing_left([seat])


def _of_uid(uid: int) -> list[int]:
    """Every process of ``uid``, zombies included."""
    return [pid for pid, (_, owner, _) in proc_table().items() if owner == uid]


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES, indirect=True)
def test_a_bot_cannot_forge_its_exit_status_nor_reach_its_init(
    forking: str, tmp_path: Path
) -> None:
    """The bot signals pid 1 of its namespace (the init, which reports its exit status)
    with everything, looks for its file descriptors and memory and writes a made-up
    status to every socket it holds, then exits with status 7: every try is refused, it
    holds no socket, and the seat reports exit status 7."""
    folder = copy_bot("forger", tmp_path)
    seat = open_seat(
        f"{folder / 'bot.py'}:Bot", name="hostile", limits=LIMITS, log_dir=tmp_path / "logs"
    )
    assert isinstance(seat, ProcessSeat) and isinstance(seat.process, ForkedProcess)
    result = play([seat, _station()], deals=2)
    seat.close()
    faults = [fault for fault in result.faults if fault.player == "hostile"]
    assert [fault.kind for fault in faults] == [FaultKind.CRASH], faults
    assert "exit status 7" in faults[0].detail, faults[0].detail
    log = next((tmp_path / "logs").glob("*.log")).read_text()
    line = next(line for line in log.splitlines() if line.startswith("FORGER "))
    tries = json.loads(line[len("FORGER ") :])
    assert not [name for name in tries if name.startswith("fd ")], tries  # no socket
    assert tries and set(tries.values()) == {"PermissionError"}, tries
    assert_nothing_left([seat])


def test_without_isolation_the_channels_are_there_so_the_test_above_means_something(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = copy_bot("channels", tmp_path)
    monkeypatch.setenv("DP_ARENA_SANDBOX", "none")
    detect.cache_clear()
    try:
        results, seats = play_mirrored(class_bot(folder))
    finally:
        detect.cache_clear()
        Path("/tmp/channel").unlink(missing_ok=True)
        subprocess.run(["ipcrm", "-M", "0x4242"], capture_output=True, check=False)
    second = [fault.detail for fault in results[1].faults]
    assert second and all("SEEN" in detail for detail in second), second
    for channel in ("abstract socket", "loopback port", "shared memory key", "file in /tmp"):
        assert channel in second[0], second[0]
    assert_nothing_left(seats)


def _station():  # type: ignore[no-untyped-def]
    from .conftest import reference_seat

    return reference_seat()


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES, indirect=True)
def test_forked_and_execd_seats_give_the_same_results(
    forking: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def mirrored() -> list[object]:
        results, seats = play_mirrored(lambda: open_seat(TAG, name="tag", limits=LIMITS), deals=12)
        assert_nothing_left(seats)
        return [(result.deals, result.faults) for result in results]

    forked = mirrored()
    monkeypatch.setenv("DP_ARENA_SEATS", "exec")
    detect.cache_clear()
    try:
        assert isolation().seats == "exec"
        seat = open_seat(TAG, name="tag", limits=LIMITS)
        assert isinstance(seat, ProcessSeat) and not isinstance(seat.process, ForkedProcess)
        seat.close()
        assert mirrored() == forked
    finally:
        detect.cache_clear()


def _hung_up(stream: IO[bytes], timeout: float) -> bool:
    """Whether every writer of ``stream`` closed it within ``timeout`` (read nothing)."""
    poller = select.poll()
    poller.register(stream.fileno(), select.POLLHUP)  # POLLIN not asked: data left is no wake
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(events & select.POLLHUP for _, events in poller.poll(100)):
            return True
    return False


@pytest.mark.parametrize("sandbox_mode", ["bubblewrap"], indirect=True)
def test_a_template_that_dies_is_replaced_and_its_seats_die_with_it(forking: str) -> None:
    seat = open_seat(TAG, name="tag", limits=LIMITS)
    assert isinstance(seat, ProcessSeat) and seat.wait_loaded() is None
    zygotes = [t.zygote_pid for t in template_module._templates.values() if t.live]
    assert zygotes and all(zygotes)
    for pid in zygotes:
        os.kill(pid, signal.SIGKILL)
    # The seat dies with its template, a moment later: the table sits down after that,
    # or it could play both deals before the kill reaches the bot. Its init dies of its
    # parent's death, and the seat is gone once the init's pidfd says so, which the
    # kernel allows only once the rest of its PID namespace is dead: the bot's stdout,
    # which only the bot holds, has hung up by then.
    assert isinstance(seat.process, ForkedProcess) and seat.process.wait_gone(10)
    assert _hung_up(seat.process.stdout, 0.5)
    result = play([seat, _station()], deals=2)
    assert [fault.kind for fault in result.faults][:1] == [FaultKind.CRASH]
    seat.close()
    again = open_seat(TAG, name="tag", limits=LIMITS)  # a new template makes the seat
    assert isinstance(again, ProcessSeat) and isinstance(again.process, ForkedProcess)
    assert not play([again, _station()], deals=2).faults
    again.close()
    assert_nothing_left([seat, again])


@pytest.mark.parametrize("sandbox_mode", ["bubblewrap"], indirect=True)
def test_no_bot_code_runs_in_a_spare_before_its_hello(forking: str, tmp_path: Path) -> None:
    """A spare is made ahead, but waits for the dealer's hello before its runner loads
    the bot: the bot's module, which writes to stderr when imported, has not run."""
    folder = tmp_path / "loud"
    folder.mkdir()
    folder.chmod(0o755)
    (folder / "bot.py").write_text(
        "import sys\nprint('IMPORTED', file=sys.stderr, flush=True)\n\n"
        "class Bot:\n    def act(self, observation):\n"
        "        return 'check' if observation.to_call == 0 else 'fold'\n"
    )
    (folder / "bot.py").chmod(0o644)
    spec = f"{folder / 'bot.py'}:Bot"
    prepare([(spec, False)], limits=LIMITS)
    first = open_seat(spec, name="loud", limits=LIMITS, log_dir=tmp_path / "logs")
    assert isinstance(first, ProcessSeat) and first.wait_loaded() is None
    deadline = time.monotonic() + 30
    spares: list[object] = []
    while not spares and time.monotonic() < deadline:
        with SPARES._lock:
            spares = [
                s
                for key, ready in SPARES._ready.items()
                for s in ready
                if key[0].runner_args[0] == spec
            ]
        time.sleep(0.05)
    assert spares, "no spare was made"
    spare = spares[0]
    os.set_blocking(spare.process.stderr.fileno(), False)  # type: ignore[attr-defined]
    with pytest.raises(BlockingIOError):
        os.read(spare.process.stderr.fileno(), 100)  # type: ignore[attr-defined]
    second = open_seat(spec, name="loud", limits=LIMITS, log_dir=tmp_path / "logs")
    assert isinstance(second, ProcessSeat) and second.sandbox is spare
    assert second.wait_loaded() is None
    first.close()
    second.close()
    logs = sorted((tmp_path / "logs").glob("*.log"))
    assert [log.read_text().count("IMPORTED") for log in logs] == [1, 1]
    assert_nothing_left([first, second])


def test_an_answer_that_brings_no_init_is_no_seat() -> None:
    """The template says why it made no seat (the kernel refused it a PID namespace, say):
    that seat is not made; an answer without the init's pidfd is not taken for one."""
    dealer, template = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    dealer.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    with dealer, template:
        template.send(b'{"error": "cannot make the seat (a PID namespace): no space"}')
        with pytest.raises(template_module.SeatNotMade, match="a PID namespace"):
            template_module._forked(dealer, time.monotonic() + 10)
        template.send(b'{"forked": true}')
        with pytest.raises(template_module.TemplateError, match="unexpected answer"):
            template_module._forked(dealer, time.monotonic() + 10)


@pytest.mark.parametrize("sandbox_mode", ["bubblewrap"], indirect=True)
def test_a_seat_the_template_could_not_make_is_execd_and_the_template_kept(
    forking: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    first = open_seat(TAG, name="tag", limits=LIMITS)
    assert isinstance(first, ProcessSeat) and isinstance(first.process, ForkedProcess)
    assert first.sandbox is not None
    template = first.sandbox._template  # the template that made it
    first.close()

    def refused(*args: object, **kwargs: object) -> ForkedProcess:
        raise template_module.SeatNotMade("cannot make the seat (a PID namespace): no space")

    with monkeypatch.context() as patch:
        patch.setattr(template_module.Template, "fork", refused)
        second = open_seat(TAG, name="tag", limits=LIMITS)
    assert isinstance(second, ProcessSeat) and not isinstance(second.process, ForkedProcess)
    assert not play([second, _station()], deals=2).faults
    second.close()
    assert "a seat is exec'd instead of forked" in capsys.readouterr().err
    third = open_seat(TAG, name="tag", limits=LIMITS)  # the same template, forking again
    assert isinstance(third, ProcessSeat) and isinstance(third.process, ForkedProcess)
    assert [t for t in template_module._templates.values() if t is template] == [template]
    third.close()
    assert_nothing_left([first, second, third])


def test_the_uid_of_a_closed_seat_is_swept_later_and_given_out_only_after(tmp_path: Path) -> None:
    """A process left under a closed forked seat's uid (here one made on purpose, outside
    any sandbox) is killed by the monitor's next look; the uid waits until then."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run a process under another uid")
    uid = 2_999_999
    left = subprocess.Popen(
        ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "sleep", "600"]
    )
    try:
        deadline = time.monotonic() + 10
        while not uid_processes(uid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert uid_processes(uid)
        MONITOR.sweep_later(uid)
        assert uid in sweeping
        assert left.wait(10) == -signal.SIGKILL
        deadline = time.monotonic() + 10
        while uid in sweeping and time.monotonic() < deadline:
            time.sleep(0.05)
        assert uid not in sweeping
        assert uid not in [pid_uid for _, pid_uid, _ in proc_table().values()]
    finally:
        if left.poll() is None:
            left.kill()
            left.wait()


@pytest.mark.parametrize("sandbox_mode", ["bubblewrap"], indirect=True)
def test_a_template_that_cannot_start_leaves_seats_execd(
    forking: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    broken = copy_bot("inspector", tmp_path)
    monkeypatch.setattr(template_module, "template_command", _no_template)
    seat = open_seat(f"{broken / 'bot.py'}:Bot", name="hostile", limits=LIMITS)
    assert isinstance(seat, ProcessSeat) and not isinstance(seat.process, ForkedProcess)
    assert seat.wait_loaded() is None
    assert not play([seat, _station()], deals=2).faults
    seat.close()
    assert "seats are exec'd instead of forked" in capsys.readouterr().err
    assert_nothing_left([seat])


def _no_template(plan):  # type: ignore[no-untyped-def]
    from dp_arena.sandbox.confinement.command import SandboxCommand

    return SandboxCommand((sys.executable, "-c", "import sys; sys.exit(3)"), {}, "/", None)
