"""Each shared word has one spelling: no module of the package but ``dp_arena.names``
writes an agent-spec prefix or a registry's or bot folder's file name as a literal."""

from __future__ import annotations

import ast
from pathlib import Path

from dp_arena import names

PACKAGE = Path(__file__).resolve().parents[1] / "dp_arena"
# Every word but a registry's folder of copies, "bots", which is also a plain English word
# (the server's JSON, its tables).
WORDS = {value for name, value in vars(names).items() if name.isupper()} - {names.REGISTRY_BOTS}
PREFIXES = {names.REGISTRY_PREFIX, names.COMMAND_PREFIX, names.ACPC_PREFIX}


def _spellings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in WORDS:
            found.append(f"{path.name}:{node.lineno}: {node.value!r}")
        elif isinstance(node, ast.JoinedStr) and node.values:
            first = node.values[0]
            text = str(first.value) if isinstance(first, ast.Constant) else ""
            # A prefix followed by a space is a message's word ("registry: version ..."),
            # not a spec.
            if any(
                text.startswith(prefix) and text[len(prefix) :][:1] != " " for prefix in PREFIXES
            ):
                found.append(f"{path.name}:{node.lineno}: f{str(first.value)!r}...")
    return found


def test_the_words_are_spelt_in_names_alone() -> None:
    found = [
        spelling
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "names.py" or path.parent != PACKAGE
        for spelling in _spellings(path)
    ]
    assert found == [], "import these from dp_arena.names:\n" + "\n".join(found)


def test_the_words_are_distinct() -> None:
    spelt = [value for name, value in vars(names).items() if name.isupper()]
    assert len(spelt) == len(set(spelt)) == len(names.__all__)
