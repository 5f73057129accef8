"""The deck key's lifecycle in a run directory: a run of a config without a seed makes a
secret key, keeps it owner-only, commits to it before the first deal, writes nothing
else that holds it while the event runs, resumes with it, and reveals it at the end."""

from __future__ import annotations

import json
import sqlite3
import stat
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from dp_arena.errors import RunError
from dp_arena.keys import EventKey
from dp_arena.runner import ExecutorOptions, resume_run, start_run
from dp_arena.runner.checkpoint import ResultSink
from dp_arena.runner.executors import SerialRun
from dp_arena.tournament.loading import load_config
from dp_arena.units import TableUnit

SERIAL = ExecutorOptions("serial")


def _secret_config(folder: Path, players: int = 12) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "event.toml"
    path.write_text(
        '[event]\nname = "secret event"\nformat = "regular"\n\n'
        f'[field]\ncount = {players}\nfrom = ["random", "calling-station", "tag"]\n'
    )
    return path


class _StopAfter(SerialRun):
    """Plays ``units`` table units, then stops as a killed run would."""

    def __init__(self, units: int) -> None:
        self.left = units

    def run_json(
        self,
        units: Sequence[TableUnit],
        on_result: ResultSink | None = None,
        *,
        histories: bool = False,
    ) -> Sequence[dict[str, Any]]:
        def counting(
            index: int, data: dict[str, Any], history: str | None, stored: bytes | None
        ) -> None:
            if on_result is not None:
                on_result(index, data, history, stored)
            self.left -= 1
            if self.left <= 0:
                raise KeyboardInterrupt

        return super().run_json(units, counting, histories=histories)


def _forms(key: EventKey) -> list[str]:
    return [key.hex, key.hex.upper(), str(key.seed)]


def _files_holding(run_dir: Path, key: EventKey) -> list[str]:
    """Every file of the run directory (the store's rows decompressed) that holds the key."""
    found = []
    for path in sorted(run_dir.rglob("*")):
        if not path.is_file():
            continue
        texts = [path.read_bytes().decode("latin-1")]
        if path.name == "store.sqlite":
            with sqlite3.connect(path) as connection:
                texts += [value for (value,) in connection.execute("SELECT value FROM meta")]
                texts += [
                    zlib.decompress(blob).decode()
                    for (blob,) in connection.execute("SELECT result FROM units")
                ]
        if any(form in text for form in _forms(key) for text in texts):
            found.append(path.relative_to(run_dir).as_posix())
    return found


def test_a_run_without_a_seed_commits_to_a_secret_key_and_reveals_it_at_the_end(
    tmp_path: Path,
) -> None:
    run_dir = tmp_path / "run"
    start_run(load_config(_secret_config(tmp_path / "event")), run_dir, SERIAL, quiet=True)
    key = EventKey.read(run_dir / "key")
    assert not key.public
    assert stat.S_IMODE(run_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((run_dir / "key").stat().st_mode) == 0o600
    commitment = (run_dir / "commitment").read_text().strip()
    assert commitment == key.commitment
    event = json.loads((run_dir / "results.json").read_text())["event"]
    assert event["key"] == key.hex and event["commitment"] == commitment
    assert event["predictable"] is False and event["seed"] is None
    # The key is in the reveal and its own file; the log names only the commitment.
    assert _files_holding(run_dir, key) == ["key", "results.json"]
    assert commitment in (run_dir / "run.log").read_text()


def test_two_runs_of_one_config_deal_from_different_keys(tmp_path: Path) -> None:
    config = load_config(_secret_config(tmp_path / "event"))
    boards = []
    for name in ("one", "two"):
        start_run(config, tmp_path / name, SERIAL, quiet=True)
        results = json.loads((tmp_path / name / "results.json").read_text())
        boards.append(results["event"]["key"])
    assert boards[0] != boards[1]


def test_the_same_key_gives_the_same_results(tmp_path: Path) -> None:
    config = load_config(_secret_config(tmp_path / "event"))
    key = EventKey.secret()
    for name in ("one", "two"):
        start_run(config, tmp_path / name, SERIAL, quiet=True, key=key)
    first, second = ((tmp_path / name / "results.json").read_bytes() for name in ("one", "two"))
    assert first == second


def test_nothing_written_while_the_event_runs_holds_the_key_and_resume_reuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fixed_code_version: None
) -> None:
    config_path = _secret_config(tmp_path / "event")
    key = EventKey.secret()
    reference = tmp_path / "reference"
    start_run(load_config(config_path), reference, SERIAL, quiet=True, key=key)

    run_dir = tmp_path / "run"
    monkeypatch.setattr("dp_arena.runner.launch.make_executor", lambda options, logs: _StopAfter(5))
    with pytest.raises(KeyboardInterrupt):
        start_run(load_config(config_path), run_dir, SERIAL, quiet=True, key=key)
    assert not (run_dir / "results.json").exists()
    assert (run_dir / "histories").is_dir() and (run_dir / "sessions").is_dir()
    assert _files_holding(run_dir, key) == ["key"]

    monkeypatch.undo()
    monkeypatch.setattr("dp_arena.runner.launch.code_version", lambda: "1" * 64)
    monkeypatch.setattr("dp_arena.runner.resume.code_version", lambda: "1" * 64)
    outcome = resume_run(run_dir, SERIAL, quiet=True)
    assert outcome.units_from_store == 5
    assert (run_dir / "results.json").read_bytes() == (reference / "results.json").read_bytes()


def test_a_resume_refuses_a_changed_or_missing_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fixed_code_version: None
) -> None:
    run_dir = tmp_path / "run"
    monkeypatch.setattr("dp_arena.runner.launch.make_executor", lambda options, logs: _StopAfter(2))
    with pytest.raises(KeyboardInterrupt):
        start_run(load_config(_secret_config(tmp_path / "event")), run_dir, SERIAL, quiet=True)
    monkeypatch.setattr("dp_arena.runner.launch.make_executor", lambda options, logs: SerialRun())
    original = (run_dir / "key").read_text()
    (run_dir / "key").write_text(EventKey.secret().hex + "\n")
    with pytest.raises(RunError, match="does not match the commitment"):
        resume_run(run_dir, SERIAL, quiet=True)
    (run_dir / "key").unlink()
    with pytest.raises(RunError, match="event key is missing"):
        resume_run(run_dir, SERIAL, quiet=True)
    (run_dir / "key").write_text(original)
    resume_run(run_dir, SERIAL, quiet=True)
    assert (run_dir / "results.json").is_file()


def test_a_public_seed_run_says_its_decks_are_predictable(tmp_path: Path) -> None:
    config = tmp_path / "public.toml"
    config.write_text(
        '[event]\nname = "demo"\nformat = "regular"\nseed = 5\n\n'
        '[field]\ncount = 8\nfrom = ["random"]\n'
    )
    run_dir = tmp_path / "run"
    start_run(load_config(config), run_dir, SERIAL, quiet=True)
    assert not (run_dir / "key").exists()
    event = json.loads((run_dir / "results.json").read_text())["event"]
    assert event["predictable"] is True and event["seed"] == 5
    assert "predictable" in (run_dir / "run.log").read_text()
    assert "predictable" in (run_dir / "summary.txt").read_text()
