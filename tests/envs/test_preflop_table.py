"""The learned bot's pre-flop equity table, made ahead by ``scripts/preflop_table.py``:
every starting hand has its class in it, and its entries are exactly what the features'
Monte-Carlo estimate gives (a sample here; all 676 in ``make test-slow``)."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from dp_arena.learn.features import (
    estimate_preflop_equity,
    preflop_class,
    preflop_classes,
    preflop_equity,
)
from dp_arena.learn.preflop_table import PREFLOP_HALF_POINTS


def test_every_starting_hand_has_its_class_in_the_table() -> None:
    holdings = Counter(preflop_class(hole) for hole in itertools.combinations(range(52), 2))
    assert len(holdings) == 169 == len(preflop_classes()) == len(PREFLOP_HALF_POINTS)
    assert set(holdings) == set(preflop_classes()) == set(PREFLOP_HALF_POINTS)
    # 6 ways to hold a pair, 4 a suited hand, 12 an offsuit one: 1,326 holdings in all.
    for (high, low, suited), ways in holdings.items():
        assert ways == (6 if high == low else 4 if suited else 12)


def _check(hand_class: tuple[int, int, bool]) -> None:
    high, low, suited = hand_class
    # Any holding of the class: the hearts and spades, here, not the representative's suits.
    hole = (high * 4 + 2, low * 4 + (2 if suited else 3))
    for opponents in range(1, 5):
        estimate = estimate_preflop_equity(hand_class, opponents)
        assert preflop_equity(hole, opponents) == estimate, (hand_class, opponents)


def test_entries_are_the_estimates_the_features_would_make() -> None:
    sample = random.Random(2026).sample(preflop_classes(), 8)
    for hand_class in [(12, 12, False), (5, 0, False), *sample]:
        _check(hand_class)


@pytest.mark.slow
def test_every_entry_is_the_estimate_the_features_would_make() -> None:
    for hand_class in preflop_classes():
        _check(hand_class)


def test_the_table_orders_hands_as_poker_does() -> None:
    """Against one random hand a higher pair is better (AA about 85%); a hand loses
    equity as opponents are added; suited hands beat the same ranks offsuit. Each entry
    is an estimate from 1,000 samples (a standard error under 0.016), so neighbours
    within that error may come out either way."""
    pairs = [preflop_equity((rank * 4, rank * 4 + 1), 1) for rank in range(13)]
    assert pairs == sorted(pairs) and 0.82 < pairs[12] < 0.88
    tolerance = 0.05  # three standard errors of a difference of two estimates
    gains = []
    for high, low, suited in preflop_classes():
        hole = (high * 4, low * 4 + (0 if suited else 1))
        by_opponents = [preflop_equity(hole, opponents) for opponents in range(1, 5)]
        for fewer, more in itertools.pairwise(by_opponents):
            assert more < fewer + tolerance, (high, low, suited, by_opponents)
        assert by_opponents[3] < by_opponents[0] - 0.1
        if suited:
            gains.append(preflop_equity(hole, 1) - preflop_equity((high * 4, low * 4 + 1), 1))
    assert 0.02 < sum(gains) / len(gains) < 0.06
