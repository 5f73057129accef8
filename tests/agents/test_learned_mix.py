"""The learned bot answers with its policy's softmax at a temperature, as a mix: the same
view gives the same mix, its most likely action is the greedy one, raise sizes that clip
to the same amount add up, and without a temperature it plays greedily."""

from __future__ import annotations

import random

import numpy as np
import pytest

from dp_arena.agents import SessionContext
from dp_arena.agents.spec import load_agent
from dp_arena.agents.table import observe
from dp_arena.engine import Action, Betting, Mix, TableRules, deck_for, new_hand
from dp_arena.learn.bot import PolicyBot
from dp_arena.learn.features import features
from dp_arena.learn.policy import LinearPolicy


def _observations(count: int):  # type: ignore[no-untyped-def]
    rng = random.Random(4)
    rules = TableRules(seat_count=3, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
    found = []
    while len(found) < count:
        state = new_hand(rules, deck_for(9, 0, 0, len(found)), button=rng.randrange(3))
        while state.actor is not None and rng.random() < 0.6:
            legal = state.legal_actions()
            state.apply(Action.call() if legal.can_call else Action.check())
        if state.actor is not None:
            found.append(observe(state, state.actor, SessionContext(event="t")))
    return found


def test_the_shipped_bot_answers_its_softmax_as_a_mix() -> None:
    bot = load_agent("learned")
    assert bot.temperature == 0.1
    greedy = PolicyBot(bot.policy)
    mixed = 0
    for observation in _observations(60):
        answer = bot.act(observation)
        assert answer == bot.act(observation)  # repeatable
        best = greedy.act(observation)
        if isinstance(answer, Mix):
            mixed += 1
            assert answer.refusal(observation.legal()) is None
            assert best in answer.actions
            # The greedy action is the most likely one.
            assert answer.probability(best) == max(answer.probabilities)
        else:
            assert answer == best
    assert mixed


def test_the_softmax_is_the_policys_and_clipped_sizes_add_up() -> None:
    policy = LinearPolicy.zeros(raise_sizes=("min", 0.5, 1, "all-in"))
    observation = _observations(1)[0]
    answer = PolicyBot(policy, temperature=1.0).act(observation)
    assert isinstance(answer, Mix)
    legal = observation.legal()
    mask = np.array(policy.actions.mask(legal), dtype=np.int8)
    probabilities = policy.probabilities(features(observation), mask)
    expected: dict[Action, float] = {}
    for index, probability in enumerate(probabilities.tolist()):
        if probability:
            action = policy.actions.to_action(
                index, legal, pot=observation.pot, current_bet=observation.current_bet
            )
            expected[action] = expected.get(action, 0.0) + probability
    assert answer == Mix(expected)
    with pytest.raises(ValueError, match="positive"):
        PolicyBot(policy, temperature=0.0)
