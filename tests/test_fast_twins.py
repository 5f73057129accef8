"""The table of fast twins (docs/architecture.md): every lockstep test it names exists,
and every opponent the vector environment plays natively or in its batch has a row."""

from __future__ import annotations

import re
from pathlib import Path

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
