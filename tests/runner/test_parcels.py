"""Bots packed by the driver and found by a worker (without Ray: the object store is a
dictionary here): the parcels hold what each bot's seat may see, a worker that has the
driver's files seats them as they are, one that lacks them unpacks a copy checked
against the hash into its cache, once, and refuses files that do not match."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from dp_arena.errors import RunError
from dp_arena.runner import parcels
from dp_arena.runner.parcels import CACHE_VARIABLE, locate, pack, parcel_hash
from dp_arena.sandbox import FailedSeat, close_seats
from dp_arena.sandbox.dealer.process import ProcessSeat
from dp_arena.units import open_player_seat

from .travelling_bots import write_bots


@pytest.fixture
def bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "cache"))
    monkeypatch.setattr(parcels, "_origins", {})
    return write_bots(tmp_path / "bots")


class Store:
    """Ray's object store as a dictionary; counts the fetches."""

    def __init__(self) -> None:
        self.objects: dict[int, Any] = {}
        self.fetches = 0

    def put(self, value: Any) -> int:
        self.objects[len(self.objects)] = value
        return len(self.objects) - 1

    def get(self, reference: int) -> Any:
        self.fetches += 1
        return self.objects[reference]


def _descriptors(specs: dict[str, str], store: Store) -> dict[str, dict[str, Any]]:
    packed = {spec: pack(spec) for spec in specs.values()}
    return {
        spec: parcel.descriptor(store.put(parcel.files))
        for spec, parcel in packed.items()
        if parcel is not None
    }


def test_each_parcel_holds_what_its_seat_may_see(bots: dict[str, str]) -> None:
    folder = pack(bots["folder-bot"])
    lone = pack(bots["lone"])
    station = pack(bots["station"])
    pipe = pack(bots["pipe"])
    assert folder is not None and lone is not None and station is not None and pipe is not None
    assert [name for name, _, _ in folder.files] == [
        "bot.py",
        "bot.toml",
        "data/level.txt",
        "helper.py",
    ]
    assert [name for name, _, _ in lone.files] == ["lone.py"]  # not its neighbours
    assert folder.entry == "bot.py:FolderBot" and lone.entry == "lone.py:LoneBot"
    assert station.entry == "calling_station_copy.py:CallingStation"
    assert pipe.entry is None and pipe.command == "python3 bot.py"
    assert station.database is not None and station.database.endswith("registry.sqlite")
    assert folder.sha256 == parcel_hash(folder.files)
    # Part of dp-arena, or software a node installs: none of these travel.
    for spec in ("random", "agents.tag:TightAggressiveBot", "cmd:true"):
        assert pack(spec) is None


def test_a_worker_with_the_drivers_files_seats_them_as_they_are(bots: dict[str, str]) -> None:
    store = Store()
    assert locate(_descriptors(bots, store), store.get) == {}
    assert store.fetches == 0


def test_a_worker_without_them_unpacks_checked_copies_once(
    bots: dict[str, str], tmp_path: Path
) -> None:
    store = Store()
    descriptors = _descriptors(bots, store)
    shutil.rmtree(tmp_path / "bots")  # this "node" cannot see the driver's bot paths
    located = locate(descriptors, store.get)
    assert store.fetches == 4 and set(located) == set(bots.values())
    cache = tmp_path / "cache"
    for spec, (seat_spec, bot_dir) in located.items():
        copy = cache / descriptors[spec]["sha256"]
        if spec == bots["pipe"]:  # a command line, run in the copy
            assert (seat_spec, bot_dir) == ("cmd:python3 bot.py", str(copy))
        else:
            assert bot_dir is None and seat_spec.startswith(f"{copy}/")
        assert (copy.stat().st_mode & 0o777) == 0o755  # readable by a bot's own uid
    assert (cache / descriptors[bots["folder-bot"]]["sha256"] / "data" / "level.txt").is_file()
    # The second batch finds the copies in the node's cache.
    assert locate(descriptors, store.get) == located and store.fetches == 4
    assert sorted(path.name for path in cache.iterdir()) == sorted(
        descriptor["sha256"] for descriptor in descriptors.values()
    )
    # The copies load, in-process and sandboxed (the bot folder's module and data too).
    for spec, (seat_spec, bot_dir) in located.items():
        for trusted in (True, False):
            seat = open_player_seat(seat_spec, "copy", trusted=trusted, bot_dir=bot_dir)
            try:
                loaded = seat.wait_loaded() if isinstance(seat, ProcessSeat | FailedSeat) else None
            finally:
                close_seats([seat])
            assert loaded is None, (spec, trusted, loaded)


def test_a_registry_bot_is_seated_from_its_registry_only_when_the_node_has_its_database(
    bots: dict[str, str], tmp_path: Path
) -> None:
    store = Store()
    descriptors = _descriptors({"station": bots["station"]}, store)
    (tmp_path / "bots" / "registry" / "registry.sqlite").unlink()
    located = locate(descriptors, store.get)
    assert store.fetches == 1 and located[bots["station"]][0].startswith(str(tmp_path / "cache"))


def test_files_that_do_not_hash_to_their_parcel_are_refused(
    bots: dict[str, str], tmp_path: Path
) -> None:
    store = Store()
    descriptors = _descriptors({"lone": bots["lone"]}, store)
    shutil.rmtree(tmp_path / "bots")
    (reference,) = [descriptor["files"] for descriptor in descriptors.values()]
    name, executable, data = store.objects[reference][0]
    store.objects[reference] = ((name, executable, data + b"\nimport os\n"),)
    with pytest.raises(RunError, match="another content hash"):
        locate(descriptors, store.get)
    assert not any((tmp_path / "cache").iterdir())  # nothing of them kept


def test_files_at_the_drivers_paths_with_other_content_are_not_used(
    bots: dict[str, str], tmp_path: Path
) -> None:
    store = Store()
    descriptors = _descriptors({"lone": bots["lone"]}, store)
    (tmp_path / "bots" / "loose" / "lone.py").write_text("class LoneBot: pass\n")
    located = locate(descriptors, store.get)
    assert store.fetches == 1 and str(tmp_path / "cache") in located[bots["lone"]][0]


def test_a_cache_others_may_write_to_is_refused(bots: dict[str, str], tmp_path: Path) -> None:
    store = Store()
    descriptors = _descriptors({"lone": bots["lone"]}, store)
    shutil.rmtree(tmp_path / "bots")
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o777)
    with pytest.raises(RunError, match="only it may write to"):
        locate(descriptors, store.get)


def test_a_bot_folder_named_as_such_travels_whole_and_is_seated_from_its_copy(
    bots: dict[str, str], tmp_path: Path
) -> None:
    spec = f"{tmp_path / 'bots' / 'folder-bot'}/"
    parcel = pack(spec)
    assert parcel is not None and parcel.entry is None and parcel.command is None
    assert [name for name, _, _ in parcel.files] == [
        "bot.py",
        "bot.toml",
        "data/level.txt",
        "helper.py",
    ]
    store = Store()
    descriptors = _descriptors({"folder": spec}, store)
    shutil.rmtree(tmp_path / "bots")
    located = locate(descriptors, store.get)
    copy = tmp_path / "cache" / descriptors[spec]["sha256"]
    assert located == {spec: (f"{copy}/", None)}  # its bot.toml travelled with it
    seat = open_player_seat(f"{copy}/", "copy", trusted=False)
    try:
        assert seat.wait_loaded() is None
    finally:
        close_seats([seat])
