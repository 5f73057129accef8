"""The benchmark's cross-fitted learned value of the draws (``bench/learned_value.py``):
its features against the fixed value's terms, and its fold rule (a deal's terms never use
weights fitted on its own fold)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from bench.learned_value import BASE_FEATURES, FEATURES, FOLDS, deal_features, learned_nets
from dp_arena.match import MatchConfig, play_match
from dp_arena.ratings.action_luck import board_action_nets
from dp_arena.results import TableSessionResult

Played = tuple[MatchConfig, tuple[TableSessionResult, ...]]


@pytest.fixture(scope="module")
def played() -> Played:
    config = MatchConfig(("random", "learned"), deals=3 * FOLDS, seed=5)
    result = play_match(config, trusted=True, adjusted=False, clairvoyance=False)
    return config, result.tables


def test_the_fixed_blends_weights_give_the_fixed_terms(played: Played) -> None:
    """Weighting the features as the fixed value blends its values (half the showdown at
    once, a quarter called, a quarter folded to) takes out exactly the fixed terms."""
    config, tables = played
    rules = config.rules()
    blend = np.zeros(FEATURES)
    for group in range(FEATURES // BASE_FEATURES):
        blend[group * BASE_FEATURES : group * BASE_FEATURES + 3] = (0.5, 0.25, 0.25)
    drawn = 0
    for table in tables:
        for deal in table.deals:
            board, differences = deal_features(rules, deal)
            fixed = [float(net) for net in board_action_nets(rules, deal)]
            assert board - differences @ blend == pytest.approx(fixed, abs=1e-9)
            drawn += len(deal.mixes)
    assert drawn > 0


def test_a_deals_terms_use_no_weights_fitted_on_its_fold(played: Played) -> None:
    """Changing a deal's records changes the nets of other folds' deals (their weights
    were fitted on it) and of no other deal of its own fold."""
    config, tables = played
    rules = config.rules()
    before = learned_nets(rules, tables)
    assert learned_nets(rules, tables) == before
    changed_deal, source_deal = FOLDS, 2 * FOLDS  # both in the first fold
    altered = [
        dataclasses.replace(
            table,
            deals=tuple(
                dataclasses.replace(table.deals[source_deal], deal=deal.deal)
                if index == changed_deal
                else deal
                for index, deal in enumerate(table.deals)
            ),
        )
        for table in tables
    ]
    after = learned_nets(rules, altered)
    for deal in range(0, len(tables[0].deals), FOLDS):
        if deal != changed_deal:
            assert all(
                table_before[deal] == table_after[deal]
                for table_before, table_after in zip(before, after, strict=True)
            ), f"deal {deal} moved with a deal of its own fold"
    moved = [
        deal
        for deal in range(len(tables[0].deals))
        if deal % FOLDS and before[0][deal] != after[0][deal]
    ]
    assert moved, "no deal of another fold moved: the weights ignored the changed deal"
    assert all(isinstance(net, Fraction) for net in after[0][0])
