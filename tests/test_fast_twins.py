"""The table of fast twins (docs/architecture.md): every name it gives imports, every
lockstep test it names exists, every module of the batch is a twin there, and every
opponent the vector environment plays natively or in its batch has a row."""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import pytest

from dp_arena.agents.spec import parse_spec
from dp_arena.envs.batch.tables import BATCH_OPPONENTS
from dp_arena.envs.native_opponents import NATIVE_OPPONENTS

REPO = Path(__file__).resolve().parents[1]


def _rows() -> list[list[str]]:
    text = (REPO / "docs" / "architecture.md").read_text()
    section = text.split("## Fast twins", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[1:]]


def test_every_lockstep_test_named_exists() -> None:
    named = 0
    for _, _, tests in _rows():
        for path, test in re.findall(r"`(tests/[\w/]+\.py)(?:::(\w+))?`", tests):
            source = (REPO / path).read_text()
            assert test == "" or f"def {test}(" in source, f"{path}::{test} is not there"
            named += 1
    assert named >= 10


def test_every_native_and_batch_opponent_has_a_row() -> None:
    references = " ".join(reference for reference, _, _ in _rows())
    for spec in {*BATCH_OPPONENTS, *NATIVE_OPPONENTS}:
        bot_file = Path(parse_spec(spec).target.split(":")[0]).name
        assert f"agents/{bot_file}" in references, f"{spec} has no row among the fast twins"


def _dotted_names(cell: str) -> list[str]:
    return re.findall(r"`(dp_arena(?:\.\w+)+)`", cell)


def _resolve(dotted: str) -> object:
    """The object a dotted name gives: its longest importable module, then attributes."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[split:]:
            value = getattr(value, attribute)
        return value
    raise AssertionError(f"{dotted} names nothing")


def test_every_name_in_the_table_imports() -> None:
    names = [name for row in _rows() for cell in row[:2] for name in _dotted_names(cell)]
    assert len(names) >= 20
    for name in names:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", DeprecationWarning)  # a module's old name
                _resolve(name)
        except (ImportError, AttributeError, DeprecationWarning) as error:
            pytest.fail(f"the fast twins' table names {name}, which does not import: {error}")


def test_every_module_of_the_batch_is_a_twin() -> None:
    twins = {name for row in _rows() for name in _dotted_names(row[1])}
    modules = {
        f"dp_arena.envs.batch.{path.stem}"
        for path in (REPO / "dp_arena" / "envs" / "batch").glob("*.py")
        if path.stem != "__init__"
    }
    missing = {
        module
        for module in modules
        if not any(twin == module or twin.startswith(module + ".") for twin in twins)
    }
    assert missing == set(), f"batch modules with no row among the fast twins: {sorted(missing)}"
