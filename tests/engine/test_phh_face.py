"""Hand histories are read and written through one face, ``dp_arena.engine.phh``: no part
of the package outside the engine imports the writer, the reader or the action parser
directly, so changing the format changes the engine's modules and nothing that uses them."""

from __future__ import annotations

import ast
from pathlib import Path

import dp_arena
from dp_arena.engine import phh
from dp_arena.engine.cards import format_cards

PACKAGE = Path(dp_arena.__file__).resolve().parent
INSIDE = ("dp_arena.engine.phh_parse", "dp_arena.engine.phh_read", "dp_arena.engine.phh_write")


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_only_the_engine_imports_the_history_modules_behind_the_face() -> None:
    bypasses = {
        str(path.relative_to(PACKAGE)): sorted(_imported(path).intersection(INSIDE))
        for path in PACKAGE.rglob("*.py")
        if path.parent.name != "engine"
    }
    assert {path: names for path, names in bypasses.items() if names} == {}


def test_the_face_gives_what_a_verifier_needs_to_check_a_hand_against_its_deck() -> None:
    text = (
        "variant = 'NT'\nante_trimming_status = true\nantes = [0, 0]\n"
        "blinds_or_straddles = [10, 20]\n"
        "min_bet = 20\nstarting_stacks = [1000, 1000]\n"
        "actions = ['d dh p1 AcAd', 'd dh p2 KcKd', 'p2 cc', 'p1 cc', 'd db 2c3c4c',"
        " 'p1 cc', 'p2 cc', 'd db 5d', 'p1 cc', 'p2 cc', 'd db 9h', 'p1 cc', 'p2 cc',"
        " 'p1 sm AcAd', 'p2 sm KcKd']\n"
    )
    (hand,) = phh.load_histories(text, file="hand.phh")
    steps = phh.parse_actions(hand.fields["actions"], hand.where, 2)
    cards = phh.HandCards.scan(steps, hand.where, 2)
    assert [format_cards(held) for held in cards.hole_cards] == ["AcAd", "KcKd"]
    assert format_cards(cards.board[: cards.board_known]) == "2c3c4c5d9h"
