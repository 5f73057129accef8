"""``HandState.copy``: a hand in progress copied shares nothing mutable with it, and
plays on exactly as the hand rebuilt from its actions (``copy.copy``) would, in the
pure and the compiled build alike."""

from __future__ import annotations

import copy
import random

import pytest

from dp_arena.engine import Action, ActionKind, Betting, HandState, TableRules, deck_for, new_hand


def _random_action(state: HandState, rng: random.Random) -> Action:
    legal = state.legal_actions()
    kind = rng.choice(legal.kinds)
    if kind is ActionKind.RAISE:
        assert legal.min_raise_to is not None and legal.max_raise_to is not None
        return Action.raise_to(rng.randint(legal.min_raise_to, legal.max_raise_to))
    return Action(kind)


def _snapshot(state: HandState) -> tuple[object, ...]:
    return (
        repr(state),
        tuple(state.history),
        tuple(state.street_bets),
        tuple(state.acted),
        state.payoffs,
        tuple(sorted(state.showdown_values.items())),
    )


@pytest.mark.parametrize("seats", [2, 3, 6])
@pytest.mark.parametrize("betting", [Betting.NO_LIMIT, Betting.POT_LIMIT])
def test_a_copy_plays_on_as_the_hand_would_and_leaves_it_alone(
    seats: int, betting: Betting
) -> None:
    rules = TableRules(seat_count=seats, small_blind=10, big_blind=20, betting=betting)
    rng = random.Random(seats)
    for deal in range(60):
        state = new_hand(rules, deck_for(11, 0, 0, deal), button=deal % seats)
        while state.actor is not None:
            before = _snapshot(state)
            twin = state.copy()
            played = []
            while twin.actor is not None:
                played.append(_random_action(twin, rng))
                twin.apply(played[-1])
            assert _snapshot(state) == before
            replayed = copy.copy(state)  # the oracle: the hand rebuilt by replaying it
            for action in played:
                replayed.apply(action)
            assert _snapshot(replayed) == _snapshot(twin)
            state.apply(_random_action(state, rng))
