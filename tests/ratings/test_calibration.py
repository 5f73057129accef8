"""Calibration: six copies of one bot that draws from its own random source, match after
match with a new key and new seeds. The copies are interchangeable, so every agent's true
score is zero; the 95% intervals of the raw and of the luck-adjusted score must each
cover it about 95% of the time, and the luck-adjusted score must not be biased.

The full-size check (1,020 intervals) runs with the slow tests: for intervals that are
right, the share covering zero falls in 93–97% with probability 99.6%. The default suite
runs 120: below 89% (probability under 0.5%) or every one of them (0.2%) fails."""

from __future__ import annotations

import random

import pytest

from dp_arena.agents import InProcessSeat, Observation
from dp_arena.engine import Action, ActionKind
from dp_arena.match import MatchConfig, play_match

COPIES = 6


class PrivateBot:
    """Loose and random, a little more eager with high cards and pairs; its draws come
    from its own random source, so copies holding the same cards play them apart."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        first, second = (card >> 2 for card in observation.hole_cards)
        strength = max(first, second) / 12 + (0.5 if first == second else 0.0)
        roll = self.rng.random()
        if observation.can(ActionKind.RAISE) and roll < 0.12 + 0.2 * strength:
            assert observation.min_raise_to is not None and observation.max_raise_to is not None
            pot = observation.pot + observation.to_call
            wanted = observation.current_bet + self.rng.randint(pot // 2, pot)
            return Action.raise_to(
                min(max(wanted, observation.min_raise_to), observation.max_raise_to)
            )
        if observation.to_call == 0:
            return Action.check()
        if roll < 0.25 + 0.5 * strength or observation.to_call <= observation.big_blind:
            return Action.call()
        return Action.fold()


def _coverage(matches: int, deals: int, seed: int) -> tuple[float, float, float]:
    """The share of raw and of luck-adjusted intervals covering zero, and the |z| of the
    first agent's mean adjusted-minus-raw block score over every match."""
    rng = random.Random(seed)
    raw = adjusted = total = 0
    shifts: list[float] = []
    for _ in range(matches):
        config = MatchConfig(
            tuple(f"copy-{index}" for index in range(COPIES)),
            deals=deals,
            seed=rng.getrandbits(32),
        )
        result = play_match(
            config,
            seat_factory=lambda _, name: InProcessSeat(PrivateBot(rng.getrandbits(64)), name),
        )
        for score in result.scores:
            luck = score.adjusted
            assert luck is not None and score.summary.low is not None and luck.low is not None
            total += 1
            raw += score.summary.low <= 0 <= score.summary.high  # type: ignore[operator]
            adjusted += luck.low <= 0 <= luck.high  # type: ignore[operator]
        # One agent only: the agents' shifts of a block sum to zero (both scores do), so
        # pooled over every agent their mean would be zero whatever the correction did.
        shifts += [
            a - r
            for a, r in zip(result.adjusted_block_scores[0], result.block_scores[0], strict=True)
        ]
    # Unbiased: the first agent's adjusted minus raw score averages zero.
    differences = shifts
    mean = sum(differences) / len(differences)
    variance = sum((value - mean) ** 2 for value in differences) / (len(differences) - 1)
    z = abs(mean) / (variance / len(differences)) ** 0.5
    return raw / total, adjusted / total, z


def test_intervals_of_copies_of_one_bot_cover_zero() -> None:
    raw, adjusted, z = _coverage(matches=20, deals=40, seed=1)
    assert 0.89 <= raw < 1 and 0.89 <= adjusted < 1
    assert z < 3.5


@pytest.mark.slow
def test_intervals_of_copies_of_one_bot_cover_zero_ninety_five_percent_of_the_time() -> None:
    raw, adjusted, z = _coverage(matches=170, deals=50, seed=11)
    assert 0.93 <= raw <= 0.97 and 0.93 <= adjusted <= 0.97
    assert z < 3.5
