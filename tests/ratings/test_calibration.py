"""Calibration: six copies of one bot, match after match with a new key and new seeds:
one that draws from its own random source, and one that answers with mixed strategies the
dealer draws from (whose luck the adjusted score takes out). The copies are
interchangeable, so every agent's true score is zero; the 95% intervals of the raw and
of the luck-adjusted score must each cover it about 95% of the time. Bots that differ
check that the correction does not move their means.

The full-size checks (1,020 intervals each) run with the slow tests: for intervals that
are right, the share covering zero falls in 93–97% with probability 99.6%. The default
suite runs 120 of each: below 89% (probability under 0.5%) or every one of them (0.2%)
fails."""

from __future__ import annotations

import random
import statistics

import pytest

from dp_arena.agents import InProcessSeat, Observation
from dp_arena.engine import Action, ActionKind, Mix
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


class MixingBot:
    """PrivateBot's play as a mixed strategy: the same chances of raising, calling and
    folding, answered as a mix the dealer draws from (a raise to a few sizes between half
    the pot and the pot, alike)."""

    def act(self, observation: Observation) -> Action | Mix:
        first, second = (card >> 2 for card in observation.hole_cards)
        strength = max(first, second) / 12 + (0.5 if first == second else 0.0)
        entries: list[tuple[Action, float]] = []
        raising = 0.0
        if observation.can(ActionKind.RAISE):
            assert observation.min_raise_to is not None and observation.max_raise_to is not None
            raising = 0.12 + 0.2 * strength
            pot = observation.pot + observation.to_call
            amounts = {
                min(
                    max(observation.current_bet + pot * share // 4, observation.min_raise_to),
                    observation.max_raise_to,
                )
                for share in (2, 3, 4)
            }
            entries += [(Action.raise_to(amount), raising / len(amounts)) for amount in amounts]
        if observation.to_call == 0:
            entries.append((Action.check(), 1 - raising))
        elif observation.to_call <= observation.big_blind:
            entries.append((Action.call(), 1 - raising))
        else:
            calling = max(0.0, min(1.0, 0.25 + 0.5 * strength) - raising)
            entries += [(Action.call(), calling), (Action.fold(), 1 - raising - calling)]
        return Mix([(action, p) for action, p in entries if p > 0])


def _coverage(matches: int, deals: int, seed: int, mixing: bool = False) -> tuple[float, float]:
    """The share of raw and of luck-adjusted intervals covering zero."""
    rng = random.Random(seed)
    raw = adjusted = total = 0
    for _ in range(matches):
        config = MatchConfig(
            tuple(f"copy-{index}" for index in range(COPIES)),
            deals=deals,
            seed=rng.getrandbits(32),
        )

        def seat(_: str, name: str) -> InProcessSeat:
            return InProcessSeat(MixingBot() if mixing else PrivateBot(rng.getrandbits(64)), name)

        result = play_match(config, seat_factory=seat, clairvoyance=False)
        for score in result.scores:
            luck = score.adjusted
            assert luck is not None and score.summary.low is not None and luck.low is not None
            total += 1
            raw += score.summary.low <= 0 <= score.summary.high  # type: ignore[operator]
            adjusted += luck.low <= 0 <= luck.high  # type: ignore[operator]
    return raw / total, adjusted / total


@pytest.mark.parametrize("mixing", [False, True], ids=["private", "mixing"])
def test_intervals_of_copies_of_one_bot_cover_zero(mixing: bool) -> None:
    raw, adjusted = _coverage(matches=20, deals=40, seed=1, mixing=mixing)
    assert 0.89 <= raw < 1 and 0.89 <= adjusted < 1


@pytest.mark.slow
@pytest.mark.parametrize("mixing", [False, True], ids=["private", "mixing"])
def test_intervals_of_copies_of_one_bot_cover_zero_ninety_five_percent_of_the_time(
    mixing: bool,
) -> None:
    raw, adjusted = _coverage(matches=170, deals=50, seed=11, mixing=mixing)
    assert 0.93 <= raw <= 0.97 and 0.93 <= adjusted <= 0.97


@pytest.mark.parametrize(
    ("specs", "deals"),
    [
        (("tag", "aggressive"), 300),
        (("tag", "calling-station", "aggressive"), 120),
        ((f"{__file__}:MixingBot", "tag"), 300),
    ],
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
