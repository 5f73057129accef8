"""The project's documents stand alone: a clone has nothing beside it, so no README, doc,
config, example or benchmark may send a reader to a file outside the repository (a
specification, field notes, an issue tracker's numbers) instead of saying it here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Where readers look: every text a clone ships for people, and the package's own text.
PLACES = (
    "README.md",
    "docs",
    "configs",
    "examples",
    "bench",
    "leaderboards",
    "dp_arena",
    "agents",
    "tests",
)
SUFFIXES = {".md", ".toml", ".py", ".sh", ".js", ".txt"}
OUTSIDE = re.compile(
    r"\bSPEC\s*(?:§|\d|\.md)"  # "SPEC 3.1", "SPEC §2", SPEC.md
    r"|\.\./shared\b"  # the workplace's shared folder
    r"|\bNOTES\.md\b"
    r"|\bSTYLE\.md\b"
    r"|\bissue\s+#?\d+\b"  # an issue tracker's numbers
    r"|\bseeds?\s+00\d\b"  # the original rules documents, by file name
)


def _texts() -> list[Path]:
    files: list[Path] = []
    for place in PLACES:
        path = REPO / place
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files += [
                item
                for item in sorted(path.rglob("*"))
                if item.is_file()
                and item.suffix in SUFFIXES
                and "__pycache__" not in item.parts
                and item != Path(__file__).resolve()  # its patterns name what it looks for
            ]
    return files


@pytest.mark.parametrize("path", _texts(), ids=lambda path: str(path.relative_to(REPO)))
def test_no_text_sends_the_reader_outside_the_repository(path: Path) -> None:
    found = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1)
        if OUTSIDE.search(line)
    ]
    assert not found, "\n".join(found)
