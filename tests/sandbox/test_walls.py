"""The sandbox's walls, each attacked by a hostile bot: a bot sees its own files and no
neighbour's, cannot make a command expose a host folder, cannot make new namespaces or
mounts, cannot read the host's load and memory figures, and its memory, processes and
CPU count for its whole process tree.

Like test_hostile.py, each bot plays against the in-process calling station and the
other player's results must be exactly those against an absent player. Deadlines are
generous; the tests assert fault kinds and what the bot reports, never times.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from dp_arena.errors import ConfigError, SubmissionError
from dp_arena.results import FaultKind
from dp_arena.sandbox import FailedSeat, open_seat

from .conftest import (
    HOSTILE,
    LIMITS,
    PYTHON,
    assert_nothing_left,
    play_mirrored,
)
from .test_hostile import (
    NAMESPACE_MODES,
    NAMESPACE_MODES_FAST,
    check_everyone_else,
    class_bot,
    hostile_faults,
)

# -- own files only ----------------------------------------------------------------------


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES_FAST, indirect=True)
def test_a_file_bot_cannot_read_its_neighbours_source(sandbox_mode: str, tmp_path: Path) -> None:
    """``bots/alice.py`` and ``bots/bob.py`` in one folder, as organisers lay them out."""
    bots = tmp_path / "bots"
    shutil.copytree(HOSTILE / "neighbours", bots)
    spec = f"{bots / 'alice.py'}:Alice"
    results, seats = play_mirrored(lambda: open_seat(spec, name="hostile", limits=LIMITS))
    faults = [fault for result in results for fault in result.faults]
    assert faults and all("read blocked" in fault.detail for fault in faults), faults
    check_everyone_else(results)
    assert_nothing_left(seats)


def _helper_bot(folder: Path) -> Path:
    folder.mkdir()
    (folder / "helper.py").write_text("def answer(observation):\n    return 'fold'\n")
    (folder / "bot.py").write_text(
        "import helper\n\nclass Bot:\n    def act(self, observation):\n"
        "        return helper.answer(observation)\n"
    )
    return folder


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES_FAST, indirect=True)
def test_a_bot_folder_with_a_manifest_keeps_its_modules_a_lone_file_does_not(
    sandbox_mode: str, tmp_path: Path
) -> None:
    with_manifest = _helper_bot(tmp_path / "submitted")
    (with_manifest / "bot.toml").write_text('name = "x"\nversion = "1"\nentry = "bot.py:Bot"\n')
    lone = _helper_bot(tmp_path / "lone")
    kept = class_bot(with_manifest)()
    alone = class_bot(lone)()
    try:
        assert kept.wait_loaded() is None  # type: ignore[attr-defined]
        fault = alone.wait_loaded()  # type: ignore[attr-defined]
    finally:
        kept.close()
        alone.close()
    assert fault is not None and fault.kind is FaultKind.LOAD_ERROR
    assert "No module named 'helper'" in fault.detail
    assert_nothing_left([kept, alone])


# -- a command bot's program --------------------------------------------------------------


@pytest.fixture
def private_runtime(tmp_path: Path) -> Path:
    """A 'Python install' with a secret beside it, in a host folder only root may enter
    (a 0700 home): on the host no bot's uid can reach it; mounted, it would be open."""
    home = tmp_path / "home"
    private = home / "tools"
    (private / "bin").mkdir(parents=True)
    (private / "bin" / "python3").symlink_to(PYTHON)
    (private / "secret.txt").write_text("the organiser's secret\n")
    os.chmod(home, 0o700)
    return private


def test_a_command_naming_a_program_in_a_host_folder_is_refused_at_load(
    tmp_path: Path, private_runtime: Path
) -> None:
    bot = shutil.copytree(HOSTILE / "exposer", tmp_path / "exposer")
    spec = f"{private_runtime / 'bin' / 'python3'} -I {bot / 'bot.py'}"
    results, seats = play_mirrored(
        lambda: open_seat(spec, name="hostile", limits=LIMITS, log_dir=tmp_path / "logs")
    )
    logs = tmp_path / "logs"
    leaked = [path.read_text() for path in (logs.iterdir() if logs.exists() else [])]
    assert not any("organiser's secret" in text for text in leaked), leaked
    assert all(isinstance(seat, FailedSeat) for seat in seats)
    assert hostile_faults(results) == [FaultKind.LOAD_ERROR, FaultKind.LOAD_ERROR]
    detail = results[0].faults[0].detail
    assert str(private_runtime / "bin" / "python3") in detail and "system folders" in detail
    check_everyone_else(results)
    assert_nothing_left(seats)


def test_a_submission_whose_command_names_a_host_program_is_refused(
    tmp_path: Path, private_runtime: Path
) -> None:
    from dp_arena.commands.submit import submit
    from dp_arena.registry import Registry

    bot = shutil.copytree(HOSTILE / "exposer", tmp_path / "submission")
    (bot / "bot.toml").write_text(
        f'name = "exposer"\nversion = "1"\ncommand = "{private_runtime}/bin/python3 bot.py"\n'
    )
    with pytest.raises(SubmissionError) as caught:
        submit(bot, registry=Registry(tmp_path / "registry"), states=4)
    assert caught.value.reason == "forbidden_program"
    assert f"{private_runtime}/bin/python3" in str(caught.value)
    assert "the Python that runs dp-arena" in str(caught.value)


def test_a_config_whose_command_names_a_host_program_is_refused(
    tmp_path: Path, private_runtime: Path
) -> None:
    from dp_arena.tournament.loading import load_config

    (tmp_path / "event").mkdir()
    config = tmp_path / "event" / "event.toml"
    config.write_text(
        '[event]\nname = "x"\nformat = "short"\nseed = 1\n'
        f'[[entrants]]\nagent = "{private_runtime}/bin/python3 -I bot.py"\n'
        '[field]\ncount = 5\nfrom = ["random"]\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    assert "entrants[0].agent" in str(caught.value)
    assert f"{private_runtime}/bin/python3" in str(caught.value)


@pytest.mark.parametrize(
    "program", ["node", "/usr/bin/node", PYTHON], ids=["bare", "system", "dealer-python"]
)
def test_system_programs_and_the_dealers_python_are_allowed(program: str, tmp_path: Path) -> None:
    from dp_arena.sandbox.confinement.mounts import check_command

    if shutil.which("node", path="/usr/local/bin:/usr/bin:/bin") is None and "node" in program:
        pytest.skip("node is not installed in a system folder here")
    check_command(f"{program} bot.js", tmp_path)  # no exception


# -- host-wide /proc figures ----------------------------------------------------------------


def _host_memtotal() -> str:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal"):
            return line.split()[1]
    raise AssertionError("no MemTotal in the host's /proc/meminfo")


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES, indirect=True)
def test_another_sandboxs_activity_does_not_show_in_proc(sandbox_mode: str) -> None:
    """While one sandbox allocates and spins, another watches the host-wide /proc
    files: it sees constant stand-ins, its own memory budget as the machine's memory."""
    from dp_arena.agents import SessionContext

    busy = class_bot(HOSTILE / "busy", name="busy")()
    try:
        assert busy.begin_session(SessionContext()) is None  # its child is now at work
        results, seats = play_mirrored(class_bot(HOSTILE / "proc_watcher"))
    finally:
        busy.close()
    faults = [fault for result in results for fault in result.faults]
    assert faults, "the watcher made no decision"
    budget_kib = str(LIMITS.memory_bytes // 1024)
    for fault in faults:
        assert "changed: []" in fault.detail, fault.detail
        assert f"MemTotal {budget_kib} kB" in fault.detail, fault.detail
    assert budget_kib != _host_memtotal()
    check_everyone_else(results)
    assert_nothing_left([*seats, busy])


# -- no new namespaces or mounts ------------------------------------------------------------


def _filter_or_skip() -> None:
    from dp_arena.sandbox import isolation

    active = isolation()
    if not active.syscall_filter:
        pytest.skip(f"no syscall filter on this machine: {active.filter_detail}")


@pytest.mark.parametrize("sandbox_mode", [*NAMESPACE_MODES, "none"], indirect=True)
def test_no_new_user_namespace_or_mount_inside_the_sandbox(sandbox_mode: str) -> None:
    _filter_or_skip()
    results, seats = play_mirrored(class_bot(HOSTILE / "nester"))
    faults = [fault for result in results for fault in result.faults]
    assert faults and all("walls held" in fault.detail for fault in faults), faults
    assert all("Operation not permitted" in fault.detail for fault in faults)
    check_everyone_else(results)
    assert_nothing_left(seats)


FILTER_PROBE = """
import ctypes, json, os, subprocess, threading
libc = ctypes.CDLL(None, use_errno=True)
def errno(number, *args):
    result = libc.syscall(number, *args)
    return 0 if result >= 0 else ctypes.get_errno()
seen = {
    "unshare": errno(272, 0x10000000),
    "setns": errno(308, 0, 0),
    "mount": errno(165, b"none", b"/mnt", b"tmpfs", 0, None),
    "clone3": errno(435, 0, 0),
    "io_uring_setup": errno(425, 1, 0),
    "keyctl": errno(250, 0, 0),
    "ptrace": errno(101, 16, os.getppid(), 0, 0),
    "getpid": errno(39),
}
# The page cache and file locks: advice taken and ignored, probes refused, locks not taken.
import fcntl, mmap, struct, sys
fd = os.open(sys.executable, os.O_RDONLY)
mapped = mmap.mmap(-1, 4 * 4096)
address = ctypes.addressof(ctypes.c_char.from_buffer(mapped))
vector = (ctypes.c_ubyte * 4)()
seen["fadvise64 DONTNEED"] = errno(221, fd, 0, 0, 4)
seen["madvise PAGEOUT"] = errno(28, ctypes.c_void_p(address), 4 * 4096, 21)
seen["madvise DONTNEED"] = errno(28, ctypes.c_void_p(address), 4 * 4096, 4)
seen["mincore"] = errno(27, ctypes.c_void_p(address), 4 * 4096, vector)
seen["cachestat"] = errno(451, fd, 0, 0, 0)
seen["process_madvise"] = errno(440, 0, 0, 0, 21, 0)
seen["move_pages"] = errno(279, 0, 0, 0, 0, 0, 0)
seen["prctl MEMORY_MERGE"] = errno(157, 67, 1, 0, 0, 0)
seen["prctl GET_DUMPABLE"] = errno(157, 3, 0, 0, 0, 0)
seen["inotify_init1"] = errno(294, 0)
buffer = bytearray(1)
try:
    os.preadv(fd, [buffer], 0, os.RWF_NOWAIT)
    seen["preadv2 NOWAIT"] = 0
except OSError as error:
    seen["preadv2 NOWAIT"] = error.errno
seen["preadv2"] = 0 if os.preadv(fd, [buffer], 0, 0) == 1 else -1
seen["flock"] = errno(73, fd, fcntl.LOCK_SH)
request = struct.pack("hhxxxxqqixxxx", fcntl.F_RDLCK, os.SEEK_SET, 0, 1, 0)
for name in ("F_OFD_SETLK", "F_SETLK", "F_OFD_GETLK", "F_GETLK"):
    try:
        fcntl.fcntl(fd, getattr(fcntl, name), request)
        seen[name] = 0
    except OSError as error:
        seen[name] = error.errno
seen["F_GETFD"] = 0 if fcntl.fcntl(fd, fcntl.F_GETFD) >= 0 else -1
thread = threading.Thread(target=lambda: None)
thread.start()
thread.join()
seen["thread"] = 0
seen["subprocess"] = subprocess.run(["true"]).returncode
pid = os.fork()
if pid == 0:
    os._exit(7)
seen["fork"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
print(json.dumps(seen))
"""


def test_the_filter_refuses_what_it_says_and_lets_ordinary_programs_run() -> None:
    """The launcher installs the filter, then runs a probe of each kind of call."""
    import errno
    import json
    import subprocess

    from dp_arena.sandbox.confinement import seccomp

    program = seccomp.program()
    if program is None:
        pytest.skip(f"the filter knows no system call numbers for {os.uname().machine}")
    completed = subprocess.run(
        [PYTHON, "-I", "-S", seccomp.__file__, program.hex(), PYTHON, "-I", "-c", FILTER_PROBE],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    seen = json.loads(completed.stdout)
    assert seen == {
        "unshare": errno.EPERM,
        "setns": errno.EPERM,
        "mount": errno.EPERM,
        "clone3": errno.ENOSYS,
        "io_uring_setup": errno.ENOSYS,
        "keyctl": errno.EPERM,
        "ptrace": errno.EPERM,
        "getpid": 0,
        "fadvise64 DONTNEED": 0,
        "madvise PAGEOUT": 0,
        "madvise DONTNEED": 0,
        "mincore": errno.EPERM,
        "cachestat": errno.EPERM,
        "process_madvise": errno.EPERM,
        "move_pages": errno.EPERM,
        "prctl MEMORY_MERGE": errno.EPERM,
        "prctl GET_DUMPABLE": 0,
        "inotify_init1": errno.EPERM,
        "preadv2 NOWAIT": errno.EAGAIN,
        "preadv2": 0,
        "flock": 0,
        "F_OFD_SETLK": 0,
        "F_SETLK": 0,
        "F_OFD_GETLK": errno.EPERM,
        "F_GETLK": errno.EPERM,
        "F_GETFD": 0,
        "thread": 0,
        "subprocess": 0,
        "fork": 7,
    }


def test_the_launcher_never_runs_a_bot_unfiltered(tmp_path: Path) -> None:
    import subprocess

    from dp_arena.sandbox.confinement import seccomp

    marker = tmp_path / "ran"
    completed = subprocess.run(
        [PYTHON, "-I", "-S", seccomp.__file__, "not-a-program", "touch", str(marker)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 126 and "cannot install the syscall filter" in completed.stderr
    assert not marker.exists()


def test_the_filters_system_call_numbers_are_the_kernels() -> None:
    from dp_arena.sandbox.confinement import seccomp

    header = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")
    if not header.is_file():
        pytest.skip("the kernel's x86-64 headers are not installed (linux-libc-dev)")
    numbers = {}
    for line in header.read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "#define" and parts[1].startswith("__NR_"):
            numbers[parts[1][len("__NR_") :]] = int(parts[2])
    # A call newer than the installed headers (cachestat) is checked against the kernel's
    # table by name only where the headers know it.
    known = {name: number for name, number in seccomp.X86_64.items() if name in numbers}
    assert {name: numbers[name] for name in known} == known
    assert len(known) >= len(seccomp.X86_64) - 1


def test_an_unknown_architecture_gets_no_filter_and_the_summary_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import platform

    from dp_arena.sandbox import isolation
    from dp_arena.sandbox.confinement import seccomp
    from dp_arena.sandbox.confinement.isolation import detect

    assert seccomp.program("aarch64") is None
    monkeypatch.setattr(platform, "machine", lambda: "riscv64")
    detect.cache_clear()
    try:
        active = isolation()
    finally:
        detect.cache_clear()
    assert not active.syscall_filter and active.to_json()["syscall_filter"] is False
    line = next(line for line in active.describe() if "syscall filter" in line)
    assert "NO" in line and "riscv64" in line
    assert active.warning is not None and "user namespaces" in active.warning


def test_the_threat_model_names_only_tests_that_exist() -> None:
    import re

    from .conftest import REPO

    text = (REPO / "docs" / "sandbox.md").read_text()
    model = text[text.index("## Threat model") :]
    named = set(re.findall(r"::(test_\w+)", model)) | set(re.findall(r"`(test_\w+)`", model))
    defined = {
        name
        for path in (REPO / "tests" / "sandbox").glob("test_*.py")
        for name in re.findall(r"^def (test_\w+)", path.read_text(), re.MULTILINE)
    }
    assert len(named) > 20 and named <= defined, sorted(named - defined)
