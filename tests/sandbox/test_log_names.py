"""Each seat of a bot gets a log file of its own: ``name.log``, ``name.2.log``, ... in the
order the seats sit down, whoever else writes logs in the same folder."""

from __future__ import annotations

from pathlib import Path

from dp_arena.sandbox.dealer.process import log_path


def test_each_seat_of_a_bot_gets_the_next_free_log(tmp_path: Path) -> None:
    names = [log_path(tmp_path, "tag-1") for _ in range(4)]
    assert [path.name for path in names if path] == [
        "tag-1.log",
        "tag-1.2.log",
        "tag-1.3.log",
        "tag-1.4.log",
    ]
    assert all(path is not None and path.exists() for path in names)


def test_a_name_another_process_took_is_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    first = log_path(folder, "bot a")  # an unsafe name is made safe
    assert first is not None and first.name == "bot_a.log"
    (folder / "bot_a.2.log").write_bytes(b"another dealer's seat")
    (folder / "bot_a.3.log").write_bytes(b"and another")
    after = log_path(folder, "bot a")
    assert after is not None and after.name == "bot_a.4.log"
    assert (folder / "bot_a.2.log").read_bytes() == b"another dealer's seat"


def test_bots_and_folders_count_apart(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    taken = [log_path(one, "a"), log_path(one, "b"), log_path(two, "a"), log_path(one, "a")]
    assert [(path.parent.name, path.name) for path in taken if path] == [
        ("one", "a.log"),
        ("one", "b.log"),
        ("two", "a.log"),
        ("one", "a.2.log"),
    ]
    assert log_path(None, "a") is None
