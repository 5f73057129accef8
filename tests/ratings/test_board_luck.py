"""The board-luck correction: each street's luck averages exactly zero over every card
that could have come (every card enumerated, exact fractions), whatever is played after
it; the all-in equity adjustment is its special case. (Hands worked by hand are the
module's doctests.)"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from fractions import Fraction

import pytest

from dp_arena.engine import (
    Action,
    Betting,
    HandState,
    Street,
    TableRules,
    format_cards,
    parse_cards,
)
from dp_arena.ratings.board_luck import board_luck
from dp_arena.ratings.equity import adjusted_nets

# A policy: (state, random source) -> the action to take.
Policy = Callable[[HandState, random.Random], Action]


def _rules(seats: int, betting: Betting = Betting.NO_LIMIT) -> TableRules:
    return TableRules(seat_count=seats, small_blind=10, big_blind=20, betting=betting, cap=1000)


def _loose(state: HandState, rng: random.Random) -> Action:
    """Calls and checks mostly, bets and raises small now and then, folds a little."""
    legal = state.legal_actions()
    roll = rng.random()
    if legal.can_raise and roll < 0.2:
        assert legal.min_raise_to is not None and legal.max_raise_to is not None
        return Action.raise_to(min(legal.max_raise_to, legal.min_raise_to + rng.randrange(60)))
    if legal.can_check:
        return Action.check()
    if roll < 0.85:
        return Action.call()
    return Action.fold()


def _play(
    rules: TableRules,
    holes: list[str],
    board: str,
    button: int,
    policy: Policy,
    rng: random.Random,
    *,
    until: Street = Street.SHOWDOWN,
    prefix: tuple[str, ...] = (),
) -> tuple[str, ...]:
    """The action log of a hand: ``prefix`` first, then ``policy`` until the hand is over
    or the cards of ``until`` are about to come."""
    state = HandState(
        rules,
        button=button,
        stacks=(rules.cap,) * rules.seat_count,  # type: ignore[operator]
        hole_cards=[parse_cards(hole) for hole in holes],  # type: ignore[misc]
        board=parse_cards(board),
    )
    actions = list(prefix)
    for text in prefix:
        _apply(state, text)
    while not state.is_complete and state.street < until:
        action = policy(state, rng)
        actions.append(f"{state.actor}:{action}")
        state.apply(action)
    return tuple(actions)


def _apply(state: HandState, text: str) -> None:
    seat, _, words = text.partition(":")
    assert state.actor == int(seat)
    kind, _, amount = words.partition(" ")
    named = {"fold": Action.fold(), "check": Action.check(), "call": Action.call()}
    state.apply(Action.raise_to(int(amount)) if kind == "raise" else named[kind])


def _history_to(
    street: Street, seats: int, seed: int
) -> tuple[TableRules, list[str], list[int], int, tuple[str, ...]]:
    """A random deal played by the loose policy up to the moment ``street``'s cards come,
    with two or more players still in and chips left to bet: the rules, the hole cards,
    the deck's remaining cards (the board so far first), the button and the actions."""
    rng = random.Random(seed)
    rules = _rules(seats)
    while True:
        deck = list(range(52))
        rng.shuffle(deck)
        holes = [format_cards(deck[2 * seat : 2 * seat + 2]) for seat in range(seats)]
        rest = deck[2 * seats :]
        button = rng.randrange(seats)
        actions = _play(rules, holes, format_cards(rest[:5]), button, _loose, rng, until=street)
        state = HandState(
            rules,
            button=button,
            stacks=(1000,) * seats,
            hole_cards=[parse_cards(hole) for hole in holes],  # type: ignore[misc]
            board=parse_cards(format_cards(rest[:5])),
        )
        for text in actions:
            _apply(state, text)
        if state.street == street and state.folded.count(False) >= 2 and state.actor is not None:
            return rules, holes, rest, button, actions


def _bet_and_folds(state: HandState, rng: random.Random) -> Action:
    """The first to act bets the minimum, everybody else folds: the hand ends there."""
    legal = state.legal_actions()
    if legal.can_check and legal.can_raise:
        assert legal.min_raise_to is not None
        return Action.raise_to(legal.min_raise_to)
    return Action.fold()


def _luck_over_every_card(street: Street, seats: int, seed: int, policy: Policy = _loose) -> None:
    """For every card (every flop) that could come on ``street``, the hand is played on
    from the same history by ``policy``, which sees the cards, and the street's luck is
    read from the corrected record: the luck summed over all of them is exactly zero,
    seat by seat, and the expectation before the cards is the same for every one."""
    rules, holes, rest, button, actions = _history_to(street, seats, seed)
    known = street.board_size - (3 if street is Street.FLOP else 1)
    board_so_far, unseen = rest[:known], rest[known:]
    drawn = 3 if street is Street.FLOP else 1
    total = [Fraction(0)] * seats
    before = None
    cards = 0
    for coming in itertools.combinations(unseen, drawn):
        others = [card for card in unseen if card not in coming]
        board = format_cards([*board_so_far, *coming, *others[: 5 - known - drawn]])
        # Play on with the new cards: what is played after them may depend on them.
        rng = random.Random(f"{seed}:{coming}")
        played = _play(rules, holes, board, button, policy, rng, prefix=actions)
        account = board_luck(rules, button=button, hole_cards=holes, board=board, actions=played)
        (luck,) = [entry for entry in account.streets if entry.street is street]
        assert before is None or luck.before == before
        before = luck.before
        total = [sum_ + value for sum_, value in zip(total, luck.luck, strict=True)]
        cards += 1
    assert cards == len(list(itertools.combinations(unseen, drawn)))
    assert total == [0] * seats
    assert before is not None and any(
        value != -committed for value, committed in zip(before, luck.committed, strict=True)
    )


@pytest.mark.parametrize(
    ("street", "seats", "seed"),
    [
        (Street.TURN, 2, 1),
        (Street.TURN, 3, 2),
        (Street.TURN, 6, 3),
        (Street.RIVER, 2, 4),
        (Street.RIVER, 4, 5),
        (Street.RIVER, 6, 6),
    ],
)
def test_the_luck_of_the_turn_and_the_river_averages_zero_over_every_card(
    street: Street, seats: int, seed: int
) -> None:
    _luck_over_every_card(street, seats, seed)


def test_the_luck_of_the_flop_averages_zero_over_every_flop_ten_handed() -> None:
    # Ten hands dealt leave 32 cards: 4,960 flops, each followed by a bet that ends the
    # hand (the slow tests below play on to the river after every flop).
    _luck_over_every_card(Street.FLOP, 10, 7, _bet_and_folds)


@pytest.mark.slow
@pytest.mark.parametrize(("seats", "seed"), [(2, 8), (6, 9)])
def test_the_luck_of_the_flop_averages_zero_over_every_flop(seats: int, seed: int) -> None:
    _luck_over_every_card(Street.FLOP, seats, seed)


def _shoving(state: HandState, rng: random.Random) -> Action:
    """Like the loose policy, but all in now and then: hands end all in on every street."""
    legal = state.legal_actions()
    if legal.can_raise and rng.random() < 0.12:
        assert legal.max_raise_to is not None
        return Action.raise_to(legal.max_raise_to)
    return _loose(state, rng)


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_the_all_in_equity_adjustment_is_the_special_case_of_the_last_decision(
    seats: int,
) -> None:
    """Over random hands: the corrected nets are the all-in equity nets (the real nets
    when the betting went on to the river or ended in folds) less the luck of every
    street whose cards came before the last decision."""
    rng = random.Random(seats)
    rules = _rules(seats)
    ended = set()
    for _ in range(60):
        deck = list(range(52))
        rng.shuffle(deck)
        holes = [format_cards(deck[2 * seat : 2 * seat + 2]) for seat in range(seats)]
        board = format_cards(deck[2 * seats : 2 * seats + 5])
        button = rng.randrange(seats)
        actions = _play(rules, holes, board, button, _shoving, rng)
        state = HandState(
            rules,
            button=button,
            stacks=(1000,) * seats,
            hole_cards=[parse_cards(hole) for hole in holes],  # type: ignore[misc]
            board=parse_cards(board),
        )
        last = Street.PREFLOP
        for text in actions:
            last = state.street
            _apply(state, text)
        shown = format_cards(state.visible_board)  # as a deal record keeps it
        account = board_luck(rules, button=button, hole_cards=holes, board=shown, actions=actions)
        equity = adjusted_nets(rules, button=button, hole_cards=holes, board=shown, actions=actions)
        before_last = [street.luck for street in account.streets if street.street <= last]
        assert account.nets == tuple(
            net - sum((luck[seat] for luck in before_last), Fraction(0))
            for seat, net in enumerate(equity)
        )
        live = state.folded.count(False)
        ended.add((last, live >= 2 and last < Street.RIVER))
    # All in before the flop (the all-in equity net itself), later, and played out.
    assert (Street.PREFLOP, True) in ended and any(
        street > Street.PREFLOP and all_in for street, all_in in ended
    )
    assert any(not all_in for _, all_in in ended)
