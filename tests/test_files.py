"""Writing files whole: text as UTF-8 or bytes as they are, the old file replaced at once,
on the disk first when asked, and a failed write leaving the old file and no temporary."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from dp_arena.files import BackgroundWriter, write_atomic


def test_text_is_written_as_utf8_in_place_of_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "folder" / "notes.txt"
    write_atomic(path, "first\n")
    write_atomic(path, "deux – ü\n")
    assert path.read_bytes() == "deux – ü\n".encode()
    assert sorted(item.name for item in path.parent.iterdir()) == ["notes.txt"]


def test_bytes_are_written_as_they_are(tmp_path: Path) -> None:
    body = bytes(range(256)) * 3
    write_atomic(tmp_path / "archive.zip", body)
    assert (tmp_path / "archive.zip").read_bytes() == body


def test_pieces_are_written_one_after_the_other(tmp_path: Path) -> None:
    """A file given in pieces (text or bytes) is their concatenation, read as they come."""
    taken: list[int] = []

    def pieces() -> Iterator[str]:
        for number in range(3):
            taken.append(number)
            yield f"line {number} – ü\n"

    write_atomic(tmp_path / "lines.txt", pieces())
    assert taken == [0, 1, 2]
    assert (tmp_path / "lines.txt").read_text() == "line 0 – ü\nline 1 – ü\nline 2 – ü\n"
    write_atomic(tmp_path / "parts.bin", iter([b"\x00\x01", b"", b"\xff"]))
    assert (tmp_path / "parts.bin").read_bytes() == b"\x00\x01\xff"


def test_a_durable_file_is_on_the_disk_before_it_takes_the_old_ones_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "archive.zip"
    synced: list[bool] = []
    real_fsync = os.fsync

    def fsync(descriptor: int) -> None:
        synced.append(path.exists())
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    write_atomic(path, b"new", durable=True)
    assert synced == [False]  # synced while still a temporary file
    write_atomic(tmp_path / "plain.txt", "not synced")
    assert synced == [False]
    assert path.read_bytes() == b"new"


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    write_atomic(path, "old\n")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(path, "a lone surrogate \ud800 cannot be UTF-8")
    assert path.read_text() == "old\n"
    assert sorted(item.name for item in tmp_path.iterdir()) == ["results.json"]

    def failing() -> Iterator[str]:
        yield "a first piece written\n"
        raise RuntimeError("the pieces stopped coming")

    with pytest.raises(RuntimeError, match="stopped coming"):
        write_atomic(path, failing())
    assert path.read_text() == "old\n"
    assert sorted(item.name for item in tmp_path.iterdir()) == ["results.json"]


def test_the_background_writer_writes_every_file_by_its_flush(tmp_path: Path) -> None:
    writer = BackgroundWriter()
    try:
        for number in range(20):
            writer.write(tmp_path / f"{number}.txt", f"hand {number}\n")
        writer.flush()
    finally:
        writer.close()
    assert sorted(item.name for item in tmp_path.iterdir()) == sorted(
        f"{number}.txt" for number in range(20)
    )
    assert (tmp_path / "7.txt").read_text() == "hand 7\n"


def test_a_temporary_left_by_a_process_of_the_same_number_is_stepped_over(
    tmp_path: Path,
) -> None:
    """Temporary names are this process's number and a count: one left by an earlier
    process that had the same number is neither reused nor touched."""
    from dp_arena import files

    following = next(files._written) + 1
    left = [tmp_path / f".notes.txt.{os.getpid()}-{following + step}.tmp" for step in range(3)]
    for leftover in left:
        leftover.write_text("an earlier process's")
    write_atomic(tmp_path / "notes.txt", "new\n")
    assert (tmp_path / "notes.txt").read_text() == "new\n"
    assert all(leftover.read_text() == "an earlier process's" for leftover in left)
    assert len(list(tmp_path.iterdir())) == 4
    assert (os.stat(tmp_path / "notes.txt").st_mode & 0o777) == 0o600
