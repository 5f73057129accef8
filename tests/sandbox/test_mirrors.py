"""Mirrored copies of one bot cannot talk: the channels between sandboxes that the whole
machine shares (the page cache of a file both can read, file locks) carry nothing.

Each colluding bot (``hostile_bots/colluder``) writes every deal's hole cards and board
into its channel and reads the channel before it acts; with a record it wins the cap
from the calling station, without one it plays as the station does. The copy at table 0
plays every deal before the copy at table 1 (both are alive throughout), so a working
channel shows at once in the score. In-process, where nothing stands between the copies,
each channel works: that is what makes the sandboxed runs mean something.
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import shutil
from pathlib import Path

import pytest

from dp_arena.results import TableSessionResult
from dp_arena.sandbox import open_seat
from dp_arena.sandbox.confinement.isolation import detect

from .conftest import HOSTILE, LIMITS, assert_nothing_left, play_mirrored
from .test_hostile import NAMESPACE_MODES_FAST

DEALS = 16
CHANNELS = ["OwnPages", "RuntimePages", "RuntimeLocks"]


def colluder(tmp_path: Path) -> Path:
    folder = tmp_path / "colluder"
    if not folder.exists():
        shutil.copytree(HOSTILE / "colluder", folder)
        (folder / "bot.toml").write_text(
            'name = "colluder"\nversion = "1"\nentry = "bot.py:OwnPages"\n'
        )
        with open(folder / "data.bin", "wb") as data:
            # 64 records of 64 pages each, written out (not sparse: a hole
            # needs no reading) and on disk (a dirty page cannot be dropped).
            data.write(bytes(64 * 64 * 4096))
            data.flush()
            os.fsync(data.fileno())
            # And out of memory, so that the bot's reads bring in single pages (the
            # large pages of the write would hold a whole record at once).
            os.posix_fadvise(data.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    return folder


def duplicate_score(results: list[TableSessionResult]) -> int:
    """The colluder's chips over both tables: seat 0 at table 0, seat 1 at table 1."""
    first, second = results
    return sum(deal.nets[0] for deal in first.deals) + sum(deal.nets[1] for deal in second.deals)


def leaked(results: list[TableSessionResult]) -> int:
    """Deals whose play at the later table differs from the earlier table's mirror."""
    first, second = results
    return sum(
        deal.nets[1] != mirror.nets[1]
        for deal, mirror in zip(second.deals, first.deals, strict=True)
    )


@pytest.mark.parametrize("channel", CHANNELS)
def test_in_process_the_copies_talk_so_the_sandboxed_tests_mean_something(
    channel: str, tmp_path: Path
) -> None:
    folder = colluder(tmp_path)
    if channel == "RuntimePages":  # its file starts out of memory, as the test's own does
        _evict(_largest_runtime_file(folder))
    spec = f"{folder / 'bot.py'}:{channel}"
    results, _ = play_mirrored(lambda: open_seat(spec, name="colluder", trusted=True), deals=DEALS)
    assert leaked(results) >= 3
    assert duplicate_score(results) > 0


def _largest_runtime_file(folder: Path) -> str:
    import importlib.util

    loaded = importlib.util.spec_from_file_location("colluder_for_its_file", folder / "bot.py")
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    return str(module.largest_runtime_file())


def _evict(path: str) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(descriptor)


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES_FAST, indirect=True)
@pytest.mark.parametrize("channel", CHANNELS)
def test_sandboxed_copies_learn_nothing_from_each_other(
    sandbox_mode: str, seats: str, channel: str, tmp_path: Path
) -> None:
    spec = f"{colluder(tmp_path) / 'bot.py'}:{channel}"
    results, seats = play_mirrored(
        lambda: open_seat(spec, name="colluder", limits=LIMITS), deals=DEALS
    )
    assert [fault.detail for result in results for fault in result.faults] == []
    assert leaked(results) == 0
    assert duplicate_score(results) == 0
    assert_nothing_left(seats)


@pytest.fixture(params=["fork", "exec"])
def seats(
    request: pytest.FixtureRequest, sandbox_mode: str, monkeypatch: pytest.MonkeyPatch
) -> str:
    """Seats forked from a warm template of the bot's sandbox, or each exec'd anew."""
    monkeypatch.setenv("DP_ARENA_SEATS", request.param)
    detect.cache_clear()
    if request.param == "fork" and detect().seats != "fork":
        pytest.skip("seats are not forked from templates here (not root, or no namespaces)")
    return str(request.param)


def _facts(log_dir: Path) -> list[dict]:  # type: ignore[type-arg]
    return [
        json.loads(line[len("FACTS ") :])
        for log in sorted(log_dir.glob("*.log"))
        for line in log.read_text(errors="replace").splitlines()
        if line.startswith("FACTS ")
    ]


def _view_mirrored(tmp_path: Path) -> tuple[Path, list[dict]]:  # type: ignore[type-arg]
    folder = tmp_path / "viewer"
    shutil.copytree(HOSTILE / "viewer", folder)
    (folder / "data.bin").write_text("the bot's own data")
    logs = tmp_path / "logs"
    results, seats = play_mirrored(
        lambda: open_seat(f"{folder / 'bot.py'}:Bot", name="viewer", limits=LIMITS, log_dir=logs),
        deals=2,
    )
    assert [fault for result in results for fault in result.faults] == []
    assert_nothing_left(seats)
    facts = _facts(logs)
    assert len(facts) == 2
    return folder, facts


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES_FAST, indirect=True)
def test_each_seat_reads_a_private_copy_of_its_own_files(
    sandbox_mode: str, seats: str, tmp_path: Path
) -> None:
    """The same bot at two mirrored tables: each copy's own files are a file system's
    apart (neither the other's nor the host's), hold the same bytes and are read-only."""
    folder, (first, second) = _view_mirrored(tmp_path)
    host = os.stat(folder / "bot.py")
    assert first["own"] != second["own"]
    assert [host.st_dev, host.st_ino] not in (first["own"], second["own"])
    assert first["data"] == second["data"] == "the bot's own data"
    assert not first["own_writable"] and not second["own_writable"]


@pytest.mark.parametrize("sandbox_mode", NAMESPACE_MODES_FAST, indirect=True)
def test_a_python_bot_sees_its_runtime_and_nothing_else_of_the_host(
    sandbox_mode: str, seats: str, tmp_path: Path
) -> None:
    """The standard library, NumPy and dp-arena; not the host's other programs, nor the
    environment's other packages, nor the interpreter's own site-packages."""
    _, facts = _view_mirrored(tmp_path)
    host_files = sum(len(names) for _, _, names in os.walk("/usr"))
    for seen in facts:
        assert seen["programs"] == []
        assert seen["packages"] == ["numpy", "dp_arena", "json"]
        assert seen["base_site_packages"] == []
        assert seen["usr_files"] < host_files / 4


def test_every_page_a_bot_can_read_is_held_in_memory_by_the_dealer() -> None:
    """After the dealer holds a Python bot's view, every page of every file of it is in
    the page cache (the kernel tells the files' owner, root, the truth through mincore)."""
    if os.geteuid() != 0:
        pytest.skip("mincore tells only a file's owner (or a writer) whether pages are cached")
    from dp_arena.sandbox.confinement.residency import _held as held_views
    from dp_arena.sandbox.confinement.residency import hold
    from dp_arena.sandbox.confinement.runtime import python_view, system_view

    view = system_view() | python_view()
    held_views.clear()  # walked anew: files made since an earlier test's walk are held too
    residency = hold(view)
    assert residency.locked, residency.detail
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
    libc.mmap.argtypes += [ctypes.c_int, ctypes.c_long]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    checked = 0
    for path in view.regular_files():
        status = os.stat(path)
        if not status.st_mode & 0o004 or status.st_size == 0:
            continue  # a bot cannot read it
        with open(path, "rb") as file:
            address = libc.mmap(
                None, status.st_size, mmap.PROT_READ, mmap.MAP_SHARED, file.fileno(), 0
            )
        assert address not in (None, ctypes.c_void_p(-1).value), path
        vector = (ctypes.c_ubyte * ((status.st_size + mmap.PAGESIZE - 1) // mmap.PAGESIZE))()
        try:
            assert libc.mincore(address, status.st_size, vector) == 0
        finally:
            libc.munmap(address, status.st_size)
        assert all(value & 1 for value in vector), path
        checked += 1
    assert checked > 1000


def test_a_channel_the_sandbox_cannot_see_is_caught_by_the_clairvoyance_test() -> None:
    """The colluding bot with a perfect channel (a dictionary both copies share in one
    process, standing for any channel the sandbox does not know): in 200 deals against
    the calling station it wins, and the test of the cards it could not see flags it;
    the station is not flagged."""
    from dp_arena.match import MatchConfig, play_match

    spec = f"{HOSTILE / 'colluder' / 'bot.py'}:SharedMemory"
    result = play_match(MatchConfig((spec, "calling-station"), deals=200, seed=5), trusted=True)
    colluder, station = result.scores
    assert colluder.summary.mean > 1000  # mbb a deal
    assert colluder.clairvoyance is not None and colluder.clairvoyance.flagged
    assert station.clairvoyance is not None and not station.clairvoyance.flagged


@pytest.mark.parametrize("sandbox_mode", ["bubblewrap"], indirect=True)
def test_the_same_bot_sandboxed_neither_gains_nor_is_flagged(sandbox_mode: str) -> None:
    from dp_arena.match import MatchConfig, play_match

    spec = f"{HOSTILE / 'colluder' / 'bot.py'}:SharedMemory"
    result = play_match(MatchConfig((spec, "calling-station"), deals=200, seed=5))
    colluder, _ = result.scores
    assert colluder.summary.mean == 0
    assert colluder.clairvoyance is not None and not colluder.clairvoyance.flagged
