"""The checkpoint store and the fingerprints it keys on: results survive the trip
through JSON and SQLite exactly, a unit is stored once, ids and code versions are the
same in every process, and a bot's hash follows its files."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from dp_arena.errors import RunError
from dp_arena.results import Fault, TableSessionResult, to_json
from dp_arena.rundir.store import RunStore, StoredResults, encode_result
from dp_arena.runner.checkpoint import CheckpointExecutor
from dp_arena.runner.executors import SerialRun
from dp_arena.runner.fingerprint import (
    bot_fingerprints,
    code_version,
    config_from_json,
    config_to_json,
    unit_id,
)
from dp_arena.tournament.formats import get_format
from dp_arena.tournament.interface import Runtime
from dp_arena.tournament.loading import load_config, parse_config
from dp_arena.units import SerialExecutor, TableUnit

from .helpers import BOTS, ROOT, write_config


class Recording(SerialExecutor):
    """The serial executor, keeping every unit and result it ran."""

    def __init__(self) -> None:
        self.played: list[tuple[TableUnit, TableSessionResult]] = []

    def run(
        self,
        units: Sequence[TableUnit],
        on_result: Callable[[int, TableSessionResult], None] | None = None,
    ) -> list[TableSessionResult]:
        results = super().run(units, on_result)
        self.played += zip(units, results, strict=True)
        return results


@pytest.fixture(scope="module")
def played() -> list[tuple[TableUnit, TableSessionResult]]:
    """Every unit and result of a small event with a faulty bot among built-ins."""
    config = parse_config(
        {
            "event": {"name": "store test", "format": "regular", "seed": 5},
            "field": {"count": 9, "from": ["random", "aggressive", "tag"]},
            "entrants": [{"name": "flaky", "agent": str(BOTS / "flaky.py:Flaky"), "trusted": True}],
        }
    )
    executor = Recording()
    event_format = get_format("regular")
    event_format.play(config, event_format.plan(config), Runtime(executor))
    return executor.played


def test_results_come_back_from_json_exactly(
    played: list[tuple[TableUnit, TableSessionResult]],
) -> None:
    faults: list[Fault] = []
    for _unit, result in played:
        text = json.dumps(to_json(result))
        assert TableSessionResult.from_json(json.loads(text)) == result
        faults += result.faults
    # The faulty bot's faults (every third decision raises) made the trip too.
    assert any(fault.player == "flaky" and "flaky failure" in fault.detail for fault in faults)


def test_a_unit_is_stored_once_and_the_first_result_stands(
    tmp_path: Path, played: list[tuple[TableUnit, TableSessionResult]]
) -> None:
    (unit, result), (_, other) = played[0], played[1]
    with RunStore.create(tmp_path, {"note": "x"}) as store:
        assert store.put(unit_id(unit), unit, to_json(result)) is True
        # Ray may run a task twice: a second insert of the same unit changes nothing.
        assert store.put(unit_id(unit), unit, to_json(other)) is False
        assert store.count() == 1
        assert store.deals() == len(result.deals)
        assert store.get([unit_id(unit), "no-such-unit"]) == {unit_id(unit): result}
        assert store.meta()["note"] == "x"
    with contextlib.closing(sqlite3.connect(tmp_path / "store.sqlite")) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        row = connection.execute(
            "SELECT session, section, table_index, deals FROM units"
        ).fetchone()
    assert row == (unit.session, unit.section, unit.table, unit.deals)


def test_every_stored_result_reads_back_in_table_order(
    tmp_path: Path, played: list[tuple[TableUnit, TableSessionResult]]
) -> None:
    with RunStore.create(tmp_path, {}) as store:
        for unit, result in reversed(played):
            store.put(unit_id(unit), unit, to_json(result))
        rows = list(store.results())
    expected = sorted(
        ((unit.session, unit.section, unit.table, result) for unit, result in played),
        key=lambda row: row[:3],
    )
    assert rows == expected


def test_a_store_is_created_once_and_opened_only_where_it_exists(tmp_path: Path) -> None:
    RunStore.create(tmp_path, {}).close()
    with pytest.raises(RunError, match="dp-arena resume"):
        RunStore.create(tmp_path, {})
    with pytest.raises(RunError, match=r"no store\.sqlite"):
        RunStore.open(tmp_path / "elsewhere")
    store = RunStore.open(tmp_path)
    store.set_meta("store_version", "99")
    store.close()
    with pytest.raises(RunError, match="store format '99'"):
        RunStore.open(tmp_path)


def test_a_unit_id_depends_on_what_decides_the_result_only(
    played: list[tuple[TableUnit, TableSessionResult]],
) -> None:
    unit = played[0][0]
    identifier = unit_id(unit)
    assert len(identifier) == 64
    assert unit_id(dataclasses.replace(unit, log_dir="/somewhere/else")) == identifier
    changed = [
        dataclasses.replace(unit, event_seed=unit.event_seed + 1),
        dataclasses.replace(unit, table=unit.table + 1),
        dataclasses.replace(
            unit, starting_chips=(unit.starting_chips[0] + 1, *unit.starting_chips[1:])
        ),
        dataclasses.replace(
            unit,
            seats=(dataclasses.replace(unit.seats[0], spec="calling-station"), *unit.seats[1:]),
        ),
        dataclasses.replace(unit, max_faults=unit.max_faults + 1),
    ]
    assert len({unit_id(other) for other in changed} | {identifier}) == len(changed) + 1


def test_ids_and_the_code_version_are_the_same_in_another_process(
    played: list[tuple[TableUnit, TableSessionResult]],
) -> None:
    units = [unit for unit, _ in played[:5]]
    program = (
        "import json, sys\n"
        "from dp_arena.units import TableUnit\n"
        "from dp_arena.runner.fingerprint import code_version, unit_id\n"
        "units = [TableUnit.from_json(data) for data in json.load(sys.stdin)]\n"
        "print(json.dumps([code_version(), [unit_id(unit) for unit in units]]))\n"
    )
    answer = subprocess.run(
        [sys.executable, "-c", program],
        input=json.dumps([unit.to_json() for unit in units]),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONHASHSEED": "12345", "PATH": "/usr/bin:/bin"},
    )
    version, identifiers = json.loads(answer.stdout)
    assert version == code_version()
    assert identifiers == [unit_id(unit) for unit in units]


def test_a_bots_hash_follows_its_files(tmp_path: Path) -> None:
    bot_folder = tmp_path / "bots"
    bot_folder.mkdir()
    (bot_folder / "mine.py").write_text((BOTS / "flaky.py").read_text())
    config = load_config(
        write_config(
            tmp_path,
            players=8,
            entrants=f'[[entrants]]\nname = "mine"\nagent = "{bot_folder / "mine.py"}:Flaky"\n',
        )
    )
    before = bot_fingerprints(config.entrants)
    assert set(before) == {
        "random",
        "calling-station",
        "aggressive",
        "tag",
        f"{bot_folder / 'mine.py'}:Flaky",
    }
    assert bot_fingerprints(config.entrants) == before
    mine = f"{bot_folder / 'mine.py'}:Flaky"
    # A file beside the bot is not the bot's, until the bot imports it.
    (bot_folder / "helper.py").write_text("WEIGHT = 1\n")
    assert bot_fingerprints(config.entrants)[mine] == before[mine]
    (bot_folder / "mine.py").write_text("import helper\n" + (BOTS / "flaky.py").read_text())
    after_import = bot_fingerprints(config.entrants)
    (bot_folder / "helper.py").write_text("WEIGHT = 2\n")
    after_helper = bot_fingerprints(config.entrants)
    (bot_folder / "mine.py").write_text((BOTS / "flaky.py").read_text() + "\n# tuned\n")
    after_edit = bot_fingerprints(config.entrants)
    assert len({before[mine], after_import[mine], after_helper[mine], after_edit[mine]}) == 4
    assert {spec: after_edit[spec] for spec in before if spec != mine} == {
        spec: before[spec] for spec in before if spec != mine
    }
    (bot_folder / "mine.py").unlink()
    assert bot_fingerprints(config.entrants)[mine] == "missing:file"


def test_a_config_comes_back_from_the_store_exactly(tmp_path: Path) -> None:
    config = load_config(
        write_config(
            tmp_path,
            players=12,
            entrants=(
                f'[[entrants]]\nname = "flaky"\nagent = "{BOTS / "flaky.py"}:Flaky"\n'
                "trusted = true\n[limits]\naction_timeout = 2.5\n"
            ),
        )
    )
    assert config_from_json(json.loads(json.dumps(config_to_json(config)))) == config
    with pytest.raises(RunError, match="stored config is malformed"):
        config_from_json({"name": "x"})


def test_stored_results_read_as_the_data_they_were_made_from() -> None:
    data = [
        {"table": index, "players": ["a", "b"], "deals": [], "faults": [], "absent_seats": []}
        for index in range(3)
    ]
    answered = StoredResults([encode_result(item) for item in data])
    assert len(answered) == 3
    assert [answered[index] for index in range(3)] == data
    assert answered[1:] == data[1:]
    assert list(answered) == data


def test_the_checkpoint_executors_answer_is_read_back_from_the_store(
    played: list[tuple[TableUnit, TableSessionResult]], tmp_path: Path
) -> None:
    """It holds none of a batch's results once handed on: asked for them afterwards, it
    reads them from the store, as they were played."""
    units = [unit for unit, _ in played[:6]]
    expected = [result for _, result in played[:6]]
    with RunStore.create(tmp_path, {}) as store:
        handed: list[tuple[int, TableSessionResult]] = []
        answer = CheckpointExecutor(SerialRun(), store).run(
            units, lambda index, result: handed.append((index, result))
        )
        assert sorted(handed, key=lambda pair: pair[0]) == list(enumerate(expected))
        assert len(answer) == 6
        assert list(answer) == expected
        assert answer[2:5] == expected[2:5]
        assert answer[-1] == expected[-1]
