"""The capped hold'em engine: cards, duplicate decks, table rules, hand state, betting,
showdown, hand evaluation and PHH hand histories.

It is pure Python and imports nothing from PettingZoo, Ray or NumPy. Start a hand from
a deck with :func:`new_hand`, or with explicit cards with :class:`HandState`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from dp_arena.engine import native  # noqa: F401  (first: a compiled build goes on the path)
from dp_arena.engine.actions import Action, ActionKind, ActionRecord, LegalActions, Street
from dp_arena.engine.cards import Card, format_card, format_cards, parse_card, parse_cards
from dp_arena.engine.deck import button_for_deal, deal_cards, deck_for
from dp_arena.engine.evaluator import (
    evaluate,
    evaluate_holdings,
    evaluate_reference,
    hand_class_name,
)
from dp_arena.engine.mixes import Mix
from dp_arena.engine.rules import Betting, TableRules
from dp_arena.engine.showdown import Pot
from dp_arena.engine.state import HandState

__all__ = [
    "Action",
    "ActionKind",
    "ActionRecord",
    "Betting",
    "Card",
    "HandState",
    "LegalActions",
    "Mix",
    "Pot",
    "Street",
    "TableRules",
    "button_for_deal",
    "deal_cards",
    "deck_for",
    "evaluate",
    "evaluate_holdings",
    "evaluate_reference",
    "format_card",
    "format_cards",
    "hand_class_name",
    "new_hand",
    "parse_card",
    "parse_cards",
]


def new_hand(
    rules: TableRules,
    deck: Sequence[Card],
    *,
    button: int,
    stacks: Sequence[int] | None = None,
    absent: Collection[int] = (),
) -> HandState:
    """Deal a hand from ``deck`` (docs/rules.md) and post the blinds.

    ``stacks`` defaults to the cap for every seat: the duplicate formats, where every
    player starts every deal with exactly the cap available.
    """
    if stacks is None:
        if rules.cap is None:
            raise ValueError("new_hand: stacks are required when the table has no cap")
        stacks = (rules.cap,) * rules.seat_count
    hole_cards, board = deal_cards(tuple(deck), rules.seat_count, button)
    return HandState(
        rules, button=button, stacks=stacks, hole_cards=hole_cards, board=board, absent=absent
    )
