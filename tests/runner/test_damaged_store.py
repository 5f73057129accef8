"""A damaged run directory is refused, naming the file (and the unit), by every reader:
``dp-arena resume`` and ``dp-arena leaderboard publish`` end with one message and exit
status 2, write no results.json and no leaderboard, and never show a traceback."""

from __future__ import annotations

import json
import shutil
import sqlite3
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from dp_arena.cli import main
from dp_arena.errors import RunError
from dp_arena.rundir.store import decode_result, encode_result
from dp_arena.runner import ExecutorOptions, RunStore, start_run
from dp_arena.tournament.loading import load_config
from tests import run_files

from .helpers import write_config

Damage = Callable[[Path], None]


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small finished run (8 built-ins, serial) every test copies and damages."""
    folder = tmp_path_factory.mktemp("finished")
    config = write_config(folder, players=8)
    run_dir = folder / "run"
    mp = pytest.MonkeyPatch()
    mp.setattr("dp_arena.runner.launch.code_version", lambda: "1" * 64)
    try:
        start_run(load_config(config), run_dir, ExecutorOptions("serial"), quiet=True)
    finally:
        mp.undo()
    return run_dir


def _copy(finished_run: Path, tmp_path: Path) -> Path:
    run_dir = tmp_path / "run"
    shutil.copytree(finished_run, run_dir)
    return run_dir


def _sql(run_dir: Path, statement: str, parameters: tuple[object, ...] = ()) -> None:
    connection = sqlite3.connect(run_dir / "store.sqlite")
    connection.execute(statement, parameters)
    connection.commit()
    connection.close()


def _first_unit(run_dir: Path) -> tuple[str, bytes, bytes]:
    """The first unit's id and result, and the second unit's result."""
    connection = sqlite3.connect(run_dir / "store.sqlite")
    rows = connection.execute(
        "SELECT unit_id, result FROM units ORDER BY session, section, table_index LIMIT 2"
    ).fetchall()
    connection.close()
    return rows[0][0], rows[0][1], rows[1][1]


def _set_first_result(run_dir: Path, blob: bytes) -> None:
    identifier, _, _ = _first_unit(run_dir)
    _sql(run_dir, "UPDATE units SET result = ? WHERE unit_id = ?", (blob, identifier))


def _edit_first_result(run_dir: Path, edit: Callable[[dict], None]) -> None:
    _, blob, _ = _first_unit(run_dir)
    data = json.loads(zlib.decompress(blob))
    edit(data)
    _set_first_result(run_dir, encode_result(data))


def _garbage(run_dir: Path) -> None:
    (run_dir / "store.sqlite").write_bytes(bytes(range(256)) * 40)


def _garbage_after_the_header(run_dir: Path) -> None:
    path = run_dir / "store.sqlite"
    data = path.read_bytes()
    path.write_bytes(data[:100] + bytes(reversed(range(256))) * (len(data) // 256))


def _swapped(run_dir: Path) -> None:
    _, _, second = _first_unit(run_dir)
    _set_first_result(run_dir, second)


# (damage, what the message says after the file name)
STORE_DAMAGE: list[tuple[str, Damage, str]] = [
    ("garbage", _garbage, "cannot open the checkpoint store: file is not a database"),
    ("garbage after the header", _garbage_after_the_header, "database disk image is malformed"),
    (
        "no units table",
        lambda run_dir: _sql(run_dir, "DROP TABLE units"),
        "not a dp-arena checkpoint store: the table 'units' is missing",
    ),
    (
        "no meta table",
        lambda run_dir: _sql(run_dir, "DROP TABLE meta"),
        "not a dp-arena checkpoint store: the table 'meta' is missing",
    ),
    (
        "a column missing",
        lambda run_dir: _sql(run_dir, "ALTER TABLE units DROP COLUMN deals"),
        "the table 'units' lacks deals",
    ),
    (
        "not zlib",
        lambda run_dir: _set_first_result(run_dir, b"not compressed"),
        r"unit [0-9a-f]{12} \(session 1, section 1, table 1\): not a stored result: not zlib",
    ),
    (
        "not JSON",
        lambda run_dir: _set_first_result(run_dir, zlib.compress(b'{"table": 1,')),
        r"unit [0-9a-f]{12} \(session 1, section 1, table 1\): not a stored result: not JSON",
    ),
    (
        "JSON nested too deeply",
        lambda run_dir: _set_first_result(run_dir, zlib.compress(b"[" * 100_000 + b"]" * 100_000)),
        "not a stored result: not JSON \\(nested too deeply\\)",
    ),
    (
        "not a result",
        lambda run_dir: _set_first_result(run_dir, zlib.compress(b'{"deals": [1, 2]}')),
        "not a table-session result: table is missing",
    ),
    (
        "a net that is a string",
        lambda run_dir: _edit_first_result(
            run_dir, lambda data: data["deals"][0].update(nets=["-20", "20"])
        ),
        r"not a table-session result: deals\[0\]: nets must be 2 integers that sum to zero",
    ),
    (
        "nets that do not add up",
        lambda run_dir: _edit_first_result(
            run_dir, lambda data: data["deals"][3].update(nets=[100, 20])
        ),
        r"deals\[3\]: nets must be 2 integers that sum to zero, not \[100, 20\]",
    ),
    (
        "a fault of no known kind",
        lambda run_dir: _edit_first_result(
            run_dir,
            lambda data: data.update(
                faults=[
                    {"kind": "CHEAT", "player": "x", "seat": 0, "deal": 1, "street": None}
                    | {"detail": ""}
                ]
            ),
        ),
        r"faults\[0\]: kind 'CHEAT' is not a fault kind",
    ),
    (
        "the config in meta not JSON",
        lambda run_dir: _sql(run_dir, "UPDATE meta SET value = '{x' WHERE key = 'config'"),
        "meta 'config' is damaged: not JSON",
    ),
    (
        "the config in meta not a config",
        lambda run_dir: _sql(run_dir, "UPDATE meta SET value = '[1, 2]' WHERE key = 'config'"),
        "the stored config is malformed",
    ),
]


@pytest.mark.parametrize(
    ("damage", "message"),
    [case[1:] for case in STORE_DAMAGE],
    ids=[case[0] for case in STORE_DAMAGE],
)
def test_resume_refuses_a_damaged_store_naming_it(
    finished_run: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    damage: Damage,
    message: str,
) -> None:
    monkeypatch.setattr("dp_arena.runner.launch.code_version", lambda: "1" * 64)
    monkeypatch.setattr("dp_arena.runner.resume.code_version", lambda: "1" * 64)
    run_dir = _copy(finished_run, tmp_path)
    (run_dir / "results.json").unlink()
    damage(run_dir)
    assert main(["resume", str(run_dir), "--executor", "serial", "--quiet"]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"dp-arena resume: {run_dir / 'store.sqlite'}: "), error
    assert _matches(message, error)
    assert not (run_dir / "results.json").exists()


def test_resume_refuses_a_result_stored_under_another_table_session(
    finished_run: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Well-formed, but another table's: it must not go into the event's results."""
    monkeypatch.setattr("dp_arena.runner.launch.code_version", lambda: "1" * 64)
    monkeypatch.setattr("dp_arena.runner.resume.code_version", lambda: "1" * 64)
    run_dir = _copy(finished_run, tmp_path)
    (run_dir / "results.json").unlink()
    _swapped(run_dir)
    assert main(["resume", str(run_dir), "--executor", "serial", "--quiet"]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"dp-arena resume: {run_dir / 'store.sqlite'}: unit ")
    assert "(session 1, section 1, table 1) holds the result of another table-session" in error
    assert not (run_dir / "results.json").exists()


@pytest.mark.parametrize(
    ("damage", "message"),
    [case[1:] for case in STORE_DAMAGE if "meta" not in case[0] or "table" in case[0]],
    ids=[case[0] for case in STORE_DAMAGE if "meta" not in case[0] or "table" in case[0]],
)
def test_leaderboard_publish_refuses_a_damaged_store_and_writes_nothing(
    finished_run: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    damage: Damage,
    message: str,
) -> None:
    run_dir = _copy(finished_run, tmp_path)
    damage(run_dir)
    out = tmp_path / "board"
    assert main(["leaderboard", "publish", str(run_dir), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"dp-arena leaderboard publish: {run_dir / 'store.sqlite'}: "), error
    assert _matches(message, error)
    assert not out.exists()


RESULTS_DAMAGE = [
    ("random bytes", bytes(range(256)) * 4, "not valid JSON"),
    ("nested too deeply", b"[" * 100_000 + b"]" * 100_000, "not valid JSON: nested too deeply"),
    ("not an object", b"[1, 2, 3]", "expected an object, found list"),
]


@pytest.mark.parametrize(
    ("content", "message"),
    [case[1:] for case in RESULTS_DAMAGE],
    ids=[case[0] for case in RESULTS_DAMAGE],
)
def test_leaderboard_publish_refuses_a_results_file_that_is_not_results(
    finished_run: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: bytes,
    message: str,
) -> None:
    run_dir = _copy(finished_run, tmp_path)
    (run_dir / "results.json").write_bytes(content)
    out = tmp_path / "board"
    assert main(["leaderboard", "publish", str(run_dir), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"dp-arena leaderboard publish: {run_dir / 'results.json'}: ")
    assert message in error
    assert not out.exists()


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (
            lambda data: data["sessions"][0]["sections"][0]["table_results"][0].update(
                deal_nets=[["-20", "20"]]
            ),
            r"sessions\[0\]\.sections\[0\]\.table_results\[0\]\.deal_nets\[0\]",
        ),
        (lambda data: data["prizes"]["by_player"].update({"random-1": 1.5}), "prizes.by_player"),
        (lambda data: data["prizes"]["by_player"].update({"random-1": "$5"}), "prizes.by_player"),
    ],
)
def test_leaderboard_publish_refuses_results_with_values_of_the_wrong_type(
    finished_run: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[dict], None],
    field: str,
) -> None:
    """A prize of 1.5 cents would have been published as 1: a wrong result (here the
    summary and the sessions' parts agree: the parts' digests are the changed parts')."""
    run_dir = _copy(finished_run, tmp_path)
    run_files.edit_results(run_dir, edit)
    out = tmp_path / "board"
    assert main(["leaderboard", "publish", str(run_dir), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert _matches(f"^dp-arena leaderboard publish: {run_dir / 'results.json'}: {field}", error)
    assert not out.exists()


def test_a_store_opened_to_read_is_not_changed_or_locked(
    finished_run: Path, tmp_path: Path
) -> None:
    run_dir = _copy(finished_run, tmp_path)
    before = (run_dir / "store.sqlite").read_bytes()
    with RunStore.open(run_dir) as writer, RunStore.read(run_dir) as reader:
        assert reader.count() == writer.count() > 0
        assert reader.meta() == writer.meta()
    assert (run_dir / "store.sqlite").read_bytes() == before


def test_a_damaged_store_is_never_repaired_by_opening_it(
    finished_run: Path, tmp_path: Path
) -> None:
    """The store used to recreate a dropped table on open, and a resume then played the
    whole event again over a store that had lost its results."""
    run_dir = _copy(finished_run, tmp_path)
    _sql(run_dir, "DROP TABLE units")
    for opener in (RunStore.open, RunStore.read):
        with pytest.raises(RunError, match="the table 'units' is missing"):
            opener(run_dir)
    connection = sqlite3.connect(run_dir / "store.sqlite")
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    connection.close()
    assert "units" not in tables


def test_decode_result_names_where_the_blob_came_from() -> None:
    with pytest.raises(RunError, match=r"^unit abc: not a stored result: not zlib data"):
        decode_result(b"\x00\x01", "unit abc")
    with pytest.raises(RunError, match=r"^x: not a table-session result: a JSON list"):
        decode_result(zlib.compress(b"[]"), "x")


def _matches(pattern: str, text: str) -> bool:
    import re

    return re.search(pattern, text) is not None
