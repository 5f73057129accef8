"""A decision's mix from its discrete actions' probabilities (``discrete_mix``), the way
the learned bot and every policy opponent answer: raise sizes that clip to one amount
are one action, and a float sum of a distribution's parts is still a distribution."""

from __future__ import annotations

import numpy as np
import pytest

from dp_arena.engine.actions import Action
from dp_arena.engine.mixes import UNIT
from dp_arena.envs.policy_agent import discrete_mix

ALL_IN = Action.raise_to(200)


def _to_action(index: int) -> Action:
    # fold, call, then three raise sizes that all clip to the player's stack
    return (Action.fold(), Action.call(), ALL_IN, ALL_IN, ALL_IN)[index]


def test_sizes_clipped_to_one_amount_whose_float_sum_passes_one_make_a_sure_action() -> None:
    # Three parts of a distribution whose float sum is 1.0000000000000002, not 1.
    parts = [0.36506899198262255, 0.5787927773682225, 0.05613823064915503]
    assert parts[0] + parts[1] + parts[2] > 1
    probabilities = np.array([0.0, 0.0, *parts])
    mix = discrete_mix(probabilities, np.ones(5, dtype=bool), _to_action)
    assert mix.actions == (ALL_IN,)
    assert mix.weights == (UNIT,)


def test_sizes_clipped_to_one_amount_add_their_probabilities() -> None:
    probabilities = np.array([0.25, 0.25, 0.125, 0.25, 0.125])
    mix = discrete_mix(probabilities, np.ones(5, dtype=bool), _to_action)
    assert dict(zip(mix.actions, mix.weights, strict=True)) == {
        Action.fold(): UNIT // 4,
        Action.call(): UNIT // 4,
        ALL_IN: UNIT // 2,
    }


def test_a_probability_on_a_refused_action_is_named() -> None:
    mask = np.array([True, True, False, True, True])
    with pytest.raises(ValueError, match="on action 2, which is not legal now"):
        discrete_mix(np.array([0.5, 0.25, 0.25, 0.0, 0.0]), mask, _to_action)
