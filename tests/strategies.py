"""Shared Hypothesis strategies: for the engine, table rules, stacks, decks, hands, and
legal and illegal actions (in the manner of attrs' ``tests/strategies.py``); for the
sandbox, what a hostile bot may write on its stdout.

Strategies draw everything a hand depends on, so a failing example shrinks to a small
table, small stacks and a short list of decisions. :func:`play_hand` plays a hand to
the end with decisions drawn from Hypothesis, acting for absent seats as the table
does (check or fold), and calls a hook after every action so that properties can be
checked at each step rather than only at the end.

:func:`bot_lines` draws one line a bot might send the dealer, from good protocol
messages to every kind of hostile bytes (deep nesting, enormous or non-finite numbers,
lone surrogates, duplicate keys, ids of the wrong type, control bytes, invalid UTF-8),
and :func:`json_values` any JSON value the protocol allows.
"""

from __future__ import annotations

import json
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
from dp_arena.engine.state import HAND_STATE_FIELDS
from dp_arena.errors import IllegalReason

__all__ = [
    "actions_for",
    "bot_lines",
    "decks",
    "hands",
    "illegal_actions_for",
    "json_values",
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
    for name in HAND_STATE_FIELDS:
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


# -- what a bot may write on its stdout ------------------------------------------------


def json_values(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """JSON values the protocol decodes back to themselves: finite floats, integers of
    at most a few dozen digits, any text without lone surrogates, few levels."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**30), 10**30),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=20),
    )
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(st.text(max_size=8), children, max_size=4),
        ),
        max_leaves=max_leaves,
    )


_ODD_IDS = st.one_of(
    st.just(True),
    st.just(False),
    st.just(1.0),
    st.just(-1),
    st.just([1]),
    st.just({"id": 1}),
    st.just("1"),
    st.just(None),
    st.just(10**40),
)
_ACTION_WORDS = st.sampled_from(["fold", "check", "call", "raise", "dance", "CALL", ""])
_HOSTILE_TEXT = st.lists(
    st.sampled_from(["\x1b[2J", "\x1b]0;title\x07", "\r", "\u202e", "\x00", "\n", "\t", "a", "é"]),
    max_size=12,
).map("".join)


def _message_line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")


@st.composite
def _protocol_messages(draw: st.DrawFn, request_id: int | None) -> bytes:
    """A message of the protocol's shape, its fields good or bad."""
    kind = draw(st.sampled_from(["hello", "action", "log", "error", None, "goodbye", 7]))
    message: dict[str, Any] = {} if kind is None else {"type": kind}
    if kind == "hello":
        message["protocol"] = draw(st.sampled_from([1, 1.0, True, 2, "1"]))
        message["name"] = draw(st.one_of(_HOSTILE_TEXT, json_values(3)))
    elif kind in ("action", None):
        good = request_id if request_id is not None else 1
        message["id"] = draw(st.one_of(st.just(good), st.just(good - 1), _ODD_IDS))
        message["action"] = draw(st.one_of(_ACTION_WORDS, json_values(2)))
        if draw(st.booleans()):
            message["amount"] = draw(
                st.one_of(st.integers(-(10**6), 10**6), st.just(1.5), st.just(True), json_values(2))
            )
    elif kind in ("log", "error"):
        message["message"] = draw(st.one_of(_HOSTILE_TEXT, json_values(4)))
        if kind == "error" and draw(st.booleans()):
            message["id"] = draw(st.one_of(st.just(request_id or 1), _ODD_IDS))
            message["fault"] = draw(st.sampled_from(["PROTOCOL", "CRASH", "ILLEGAL", None]))
    return _message_line(message)


def _nested(depth: int, balanced: bool, inside: bytes = b"") -> bytes:
    opening = b"[" * depth + inside
    return opening + b"]" * depth if balanced else opening


_RAW_HOSTILE = st.one_of(
    # Nesting deep enough to make a recursive parser overflow, balanced or not.
    st.builds(_nested, st.integers(30, 40), st.booleans()),
    st.builds(_nested, st.sampled_from([1000, 100_000, 200_000]), st.booleans()),
    st.builds(lambda n: b'{"a":' * n + b"1" + b"}" * n, st.integers(30, 3000)),
    # Brackets inside a string are not nesting.
    st.builds(lambda n: b'{"type":"log","message":"' + b"[" * n + b'"}', st.integers(30, 5000)),
    # Numbers: too many digits, not finite, not JSON.
    st.builds(
        lambda n: b'{"id":1,"action":"raise","amount":' + b"9" * n + b"}", st.integers(90, 6000)
    ),
    st.sampled_from(
        [
            b'{"id":1,"action":"raise","amount":1e400}',
            b'{"id":1,"action":"raise","amount":-1e400}',
            b'{"id":1,"action":"raise","amount":NaN}',
            b'{"id":1,"action":"raise","amount":Infinity}',
            b'{"id":1,"action":"raise","amount":-Infinity}',
            b'{"id":1,"action":"call","action":"fold"}',
            b'{"id":1,"id":2,"action":"call"}',
            b'{"type":"log","message":"\\ud800 lone"}',
            b'{"type":"error","message":"\\udfff\\u001b[2J\\u202e"}',
            b'{"type":"hello","protocol":1,"name":"\\ud800\\u001b]0;owned\\u0007"}',
            b"\x00\x00\x00",
            b'{"id":1,"action":"call"}\x00',
            b"\xef\xbb\xbf{}",  # a UTF-8 byte order mark
            b'\xff\xfe{\x00"\x00}\x00',  # UTF-16
            b"\x80\xc0\xed\xa0\x80",  # invalid UTF-8, an encoded surrogate
            b"debug: hand 3 \x1b[31mred\x1b[0m",
            b"call",
            b"[1, 2, 3]",
            b'"call"',
            b"null",
            b"",
            b"   ",
        ]
    ),
    st.builds(lambda n: b'{"type":"log","message":"' + b"x" * n + b'"}', st.integers(0, 100_000)),
    st.binary(max_size=200),
    st.text(max_size=50).map(lambda text: text.encode("utf-8")),
)


def bot_lines(request_id: int | None = None) -> st.SearchStrategy[bytes]:
    """One line (without its newline) a bot might send: a protocol message with good or
    bad fields (``request_id``: the request being answered, if any), or hostile bytes."""
    return st.one_of(_protocol_messages(request_id), _RAW_HOSTILE)
