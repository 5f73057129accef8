"""An entrant's code as results.json names it: never a path of the machine that ran the
event; and who was benched, read from the sessions."""

from __future__ import annotations

import pytest

from dp_arena.tournament.code import code_label, entrant_code


@pytest.mark.parametrize(
    ("spec", "kind", "name"),
    [
        ("/home/me/bots/tighty/bot.py:Tighty", "file", "bot.py:Tighty"),
        ("../mybot/bot.py:Tighty", "file", "bot.py:Tighty"),
        ("bots.tighty:Tighty", "module", "bots.tighty:Tighty"),
        ("cmd:node /home/me/bots/js/bot.js --depth 3", "command", "node bot.js --depth 3"),
        ("cmd:/opt/bots/run.sh", "command", "run.sh"),
        ("registry:alice@3", "registry", "alice"),
        ("registry:alice", "registry", "alice"),
        ("calling-station", "builtin", "calling-station"),
    ],
)
def test_codes_are_named_without_a_path(spec: str, kind: str, name: str) -> None:
    found = entrant_code(spec)
    assert (found["kind"], found["name"]) == (kind, name)
    assert "/home" not in code_label(found) and "/opt" not in code_label(found)


def test_a_registry_code_keeps_its_version() -> None:
    assert entrant_code("registry:alice@3")["version"] == 3
    assert entrant_code("registry:alice")["version"] is None
    assert code_label(entrant_code("registry:alice", version=7)) == "alice@7"
