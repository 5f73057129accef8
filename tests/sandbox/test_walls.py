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
    from dp_arena.tournament.config import load_config

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
    from dp_arena.sandbox.mounts import check_command

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
