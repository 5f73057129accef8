"""Calibration: six copies of one bot that draws from its own random source, match after
match with a new key and new seeds. The copies are interchangeable, so every agent's true
score is zero; the 95% intervals of the raw and of the luck-adjusted score must each
cover it about 95% of the time. Bots that differ check that the correction does not move
their means.

The full-size check (1,020 intervals) runs with the slow tests: for intervals that are
right, the share covering zero falls in 93–97% with probability 99.6%. The default suite
runs 120: below 89% (probability under 0.5%) or every one of them (0.2%) fails."""

from __future__ import annotations

import random
import statistics

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


def _coverage(matches: int, deals: int, seed: int) -> tuple[float, float]:
    """The share of raw and of luck-adjusted intervals covering zero."""
    rng = random.Random(seed)
    raw = adjusted = total = 0
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
    return raw / total, adjusted / total


def test_intervals_of_copies_of_one_bot_cover_zero() -> None:
    raw, adjusted = _coverage(matches=20, deals=40, seed=1)
    assert 0.89 <= raw < 1 and 0.89 <= adjusted < 1


@pytest.mark.slow
def test_intervals_of_copies_of_one_bot_cover_zero_ninety_five_percent_of_the_time() -> None:
    raw, adjusted = _coverage(matches=170, deals=50, seed=11)
    assert 0.93 <= raw <= 0.97 and 0.93 <= adjusted <= 0.97


@pytest.mark.parametrize(
    ("specs", "deals"),
    [(("tag", "aggressive"), 300), (("tag", "calling-station", "aggressive"), 120)],
)
def test_the_correction_does_not_move_the_means_of_different_bots(
    specs: tuple[str, ...], deals: int
) -> None:
    """Copies cannot show a bias (interchangeable, their every score averages zero
    whatever is done to it): bots that differ can. Each one's luck-adjusted minus raw
    block score averages zero within chance (|z| < 3.5; the exact proof is the
    enumeration of every card in ``test_board_luck.py``), while its spread is smaller."""
    result = play_match(MatchConfig(specs, deals=deals, seed=3), trusted=True)
    for agent in range(len(specs)):
        raw, luck = result.block_scores[agent], result.adjusted_block_scores[agent]
        shifts = [a - r for a, r in zip(luck, raw, strict=True)]
        assert any(shifts)
        mean = statistics.fmean(shifts)
        assert abs(mean) / (statistics.stdev(shifts) / len(shifts) ** 0.5) < 3.5
        assert statistics.variance(luck) < statistics.variance(raw)
