"""Table rules and the start of a hand refuse bad input with an error naming the field
at fault (docs/rules.md), and valid rules are frozen values that can key a dict."""

from __future__ import annotations

import dataclasses

import pytest

from dp_arena.engine import (
    Action,
    Betting,
    HandState,
    Street,
    TableRules,
    deck_for,
    new_hand,
    parse_cards,
)
from dp_arena.engine.state import HAND_STATE_FIELDS
from dp_arena.errors import ConfigError


def test_defaults_are_the_duplicate_format() -> None:
    rules = TableRules(seat_count=6, small_blind=10, big_blind=20)
    assert (rules.betting, rules.cap) == (Betting.NO_LIMIT, 1000)


def test_betting_may_be_given_by_name() -> None:
    rules = TableRules(2, 10, 20, "pot-limit")  # type: ignore[arg-type]
    assert rules.betting is Betting.POT_LIMIT


def test_rules_are_frozen_and_hashable() -> None:
    rules = TableRules(2, 10, 20, Betting.POT_LIMIT, cap=None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.cap = 500  # type: ignore[misc]
    same = TableRules(2, 10, 20, Betting.POT_LIMIT, cap=None)
    assert {rules: "table"}[same] == "table"


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"seat_count": 1}, "seat_count"),
        ({"seat_count": 11}, "seat_count"),
        ({"seat_count": 6.0}, "seat_count"),
        ({"seat_count": True}, "seat_count"),
        ({"small_blind": 0}, "small_blind"),
        ({"small_blind": 30}, "small_blind"),  # above the big blind
        ({"big_blind": "20"}, "big_blind"),
        ({"betting": "limit"}, "betting"),
        ({"cap": 19}, "cap"),  # below the big blind
        ({"cap": 1000.0}, "cap"),
        ({"cap": False}, "cap"),
    ],
)
def test_bad_rules_name_the_field(arguments: dict[str, object], field: str) -> None:
    values: dict[str, object] = {"seat_count": 6, "small_blind": 10, "big_blind": 20}
    values.update(arguments)
    with pytest.raises(ConfigError, match=field) as caught:
        TableRules(**values)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_the_smallest_legal_cap_is_the_big_blind() -> None:
    rules = TableRules(2, 10, 20, cap=20)
    state = new_hand(rules, deck_for(0, 0, 0, 0), button=0)
    # The big blind is all-in with its blind; the button may only call its last 10 or fold.
    legal = state.legal_actions()
    assert (legal.seat, legal.call_amount, legal.can_raise) == (0, 10, False)
    state.apply(Action.call())
    # No one has chips left: the board is dealt out without betting.
    assert state.is_complete and state.street is Street.SHOWDOWN and state.committed == [20, 20]


HOLES = [parse_cards("AsAh"), parse_cards("KdKh"), parse_cards("QcQd")]
BOARD = parse_cards("2c7d9hJsTs")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"button": 3}, "button"),
        ({"button": -1}, "button"),
        ({"stacks": [1000, 1000]}, "stacks"),
        ({"stacks": [1000, 0, 1000]}, "stacks"),
        ({"stacks": [1000, 500.0, 1000]}, "stacks"),
        ({"hole_cards": HOLES[:2]}, "hole_cards"),
        ({"board": BOARD[:4]}, "board"),
    ],
)
def test_a_bad_hand_is_refused_by_name(arguments: dict[str, object], message: str) -> None:
    values: dict[str, object] = {
        "button": 0,
        "stacks": [1000] * 3,
        "hole_cards": HOLES,
        "board": BOARD,
    }
    values.update(arguments)
    with pytest.raises(ValueError, match=message):
        HandState(TableRules(3, 10, 20), **values)  # type: ignore[arg-type]


def test_new_hand_without_a_cap_needs_stacks() -> None:
    with pytest.raises(ValueError, match="stacks"):
        new_hand(TableRules(3, 10, 20, cap=None), deck_for(0, 0, 0, 0), button=0)


def test_new_hand_defaults_every_stack_to_the_cap() -> None:
    state = new_hand(TableRules(3, 10, 20, cap=700), deck_for(0, 0, 0, 0), button=0)
    assert state.starting_stacks == (700, 700, 700)
    assert state.available == [700, 690, 680]


def test_the_listed_fields_are_the_hand_states_slots() -> None:
    # Skipped in a compiled build, whose class has no __slots__ to compare with.
    slots = getattr(HandState, "__slots__", None)
    if slots is None:
        pytest.skip("a compiled HandState has no __slots__")
    assert tuple(slots) == HAND_STATE_FIELDS
    assert sorted(HandState.__annotations__) == sorted(HAND_STATE_FIELDS)  # each one declared


def test_a_hand_copies_and_pickles_as_the_same_hand() -> None:
    import copy
    import pickle

    rules = TableRules(seat_count=3, small_blind=10, big_blind=20, betting=Betting.POT_LIMIT)
    hand = new_hand(rules, deck_for(9, 0, 0, 4), button=1, absent={2})
    hand.apply(Action.raise_to(hand.legal_actions().max_raise_to or 0))
    for copied in (copy.deepcopy(hand), pickle.loads(pickle.dumps(hand))):
        assert {name: getattr(copied, name) for name in HAND_STATE_FIELDS} == {
            name: getattr(hand, name) for name in HAND_STATE_FIELDS
        }
        copied.apply(Action.fold())
        assert len(hand.history) == 1  # the copy plays on alone
