"""Shared Hypothesis strategies for the engine: table rules, stacks, decks, hands, and
legal and illegal actions (in the manner of attrs' ``tests/strategies.py``).

Strategies draw everything a hand depends on, so a failing example shrinks to a small
table, small stacks and a short list of decisions. :func:`play_hand` plays a hand to
the end with decisions drawn from Hypothesis, acting for absent seats as the table
does (check or fold), and calls a hook after every action so that properties can be
checked at each step rather than only at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from dp_arena.engine import (
    Action,
    ActionKind,
    Betting,
    HandState,
    LegalActions,
    TableRules,
    new_hand,
)
from dp_arena.errors import IllegalReason

__all__ = [
    "actions_for",
    "decks",
    "hands",
    "illegal_actions_for",
    "play_hand",
    "snapshot",
    "stacks_for",
    "table_rules",
]


@st.composite
def table_rules(
    draw: st.DrawFn,
    seat_counts: st.SearchStrategy[int] | None = None,
    capped: st.SearchStrategy[bool] | None = None,
) -> TableRules:
    """Any valid table: 2-10 seats (or ``seat_counts``), either betting structure, small
    blinds so that stacks hold many of them, and a cap of at least the big blind or none
    (``capped`` decides)."""
    seat_counts = seat_counts if seat_counts is not None else st.integers(2, 10)
    capped = capped if capped is not None else st.booleans()
    big_blind = draw(st.sampled_from((2, 10, 20, 40)))
    small_blind = draw(st.sampled_from(sorted({1, big_blind // 2, big_blind})))
    cap = draw(st.integers(big_blind, 60 * big_blind)) if draw(capped) else None
    return TableRules(
        seat_count=draw(seat_counts),
        small_blind=small_blind,
        big_blind=big_blind,
        betting=draw(st.sampled_from(Betting)),
        cap=cap,
    )


@st.composite
def stacks_for(draw: st.DrawFn, rules: TableRules) -> tuple[int, ...]:
    """Stacks for every seat: the duplicate case (every seat exactly the cap), or
    unequal stacks mixing short ones (less than a blind, a few blinds) with deep ones,
    so that short all-ins, side pots and stacks beyond the cap all happen."""
    if rules.cap is not None and draw(st.booleans()):
        return (rules.cap,) * rules.seat_count
    big_blind = rules.big_blind
    one_stack = st.one_of(
        st.integers(1, 3 * big_blind),
        st.integers(3 * big_blind, 30 * big_blind),
        st.integers(30 * big_blind, 100 * big_blind),
    )
    return tuple(draw(st.lists(one_stack, min_size=rules.seat_count, max_size=rules.seat_count)))


def decks() -> st.SearchStrategy[list[int]]:
    """A shuffled deck of the 52 cards."""
    return st.permutations(range(52))


@st.composite
def hands(
    draw: st.DrawFn,
    rules: st.SearchStrategy[TableRules] | None = None,
    with_absent: bool = True,
) -> HandState:
    """A fresh hand, blinds posted: any table, button, stacks and deck, and sometimes
    absent seats."""
    table = draw(rules if rules is not None else table_rules())
    seats = range(table.seat_count)
    absent = set()
    if with_absent:
        absent = draw(st.sets(st.sampled_from(seats), max_size=table.seat_count - 1))
    return new_hand(
        table,
        draw(decks()),
        button=draw(st.sampled_from(seats)),
        stacks=draw(stacks_for(table)),
        absent=absent,
    )


def actions_for(legal: LegalActions) -> st.SearchStrategy[Action]:
    """A legal action, uniform over the kinds; a raise is often the minimum or the
    maximum, where the rules' edges are."""
    choices: list[st.SearchStrategy[Action]] = [
        st.just(Action(kind)) for kind in legal.kinds if kind is not ActionKind.RAISE
    ]
    if legal.min_raise_to is not None and legal.max_raise_to is not None:
        low, high = legal.min_raise_to, legal.max_raise_to
        amounts = st.one_of(st.just(low), st.just(high), st.integers(low, high))
        choices.append(amounts.map(Action.raise_to))
    return st.one_of(choices)


def illegal_actions_for(legal: LegalActions) -> list[tuple[object, IllegalReason]]:
    """Every kind of refused action for this decision, with the reason the engine must
    give. Built from the rules, not from the engine's code paths."""
    candidates: list[tuple[object, IllegalReason]] = [
        ("fold", IllegalReason.UNKNOWN_ACTION),  # a string is not an action
        (None, IllegalReason.UNKNOWN_ACTION),
        (Action(ActionKind.RAISE, None), IllegalReason.BAD_AMOUNT),
        (Action(ActionKind.RAISE, 100.0), IllegalReason.BAD_AMOUNT),
        (Action(ActionKind.RAISE, True), IllegalReason.BAD_AMOUNT),
    ]
    if legal.can_check:
        candidates.append((Action.fold(), IllegalReason.NOTHING_TO_FOLD))
        candidates.append((Action.call(), IllegalReason.NOTHING_TO_CALL))
    else:
        candidates.append((Action.check(), IllegalReason.CHECK_FACING_BET))
    if legal.min_raise_to is None or legal.max_raise_to is None:
        candidates.append((Action.raise_to(10**6), IllegalReason.RAISE_NOT_ALLOWED))
    else:
        candidates.append((Action.raise_to(legal.min_raise_to - 1), IllegalReason.RAISE_BELOW_MIN))
        candidates.append((Action.raise_to(legal.max_raise_to + 1), IllegalReason.RAISE_ABOVE_MAX))
    return candidates


def snapshot(state: HandState) -> dict[str, Any]:
    """Every field of the state, copied, so that a later comparison sees any change."""
    copied: dict[str, Any] = {}
    for name in HandState.__slots__:
        value = getattr(state, name)
        if isinstance(value, list):
            value = tuple(value)
        elif isinstance(value, dict):
            value = dict(value)
        copied[name] = value
    return copied


def play_hand(
    state: HandState,
    data: st.DataObject,
    after_action: Callable[[HandState], None] | None = None,
) -> int:
    """Play ``state`` to the end with decisions drawn from ``data``; absent seats check
    or fold. Returns the number of actions taken."""
    actions = 0
    while state.actor is not None:
        legal = state.legal_actions()
        if state.absent[legal.seat]:
            action = legal.passive()
        else:
            label = f"seat {legal.seat} on the {state.street.name.lower()}"
            action = data.draw(actions_for(legal), label=label)
        state.apply(action)
        actions += 1
        if after_action is not None:
            after_action(state)
    return actions
