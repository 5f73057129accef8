"""Duplicate scores, block bootstrap intervals, rank intervals, pairwise chances and the
deals needed to separate bots: on constructed results with answers worked by hand, and
on real duplicate matches."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from statistics import NormalDist

import pytest

from dp_arena.match import MatchConfig, block_scores, play_match
from dp_arena.ratings.blocks import bootstrap_means, bootstrap_partial_means
from dp_arena.ratings.board_luck import corrected_nets
from dp_arena.ratings.duplicate import play_scores, score_matrix
from dp_arena.ratings.runs import DealBlock, SeatPlay, table_blocks
from dp_arena.ratings.uncertainty import deals_needed, rank_with_uncertainty


def _block(deal: int, *plays: tuple[str, int, int, int], big_blind: int = 20) -> DealBlock:
    return DealBlock("e", 1, 1, deal, big_blind, tuple(SeatPlay(*play) for play in plays))


def test_score_is_net_minus_seat_position_mean_in_mbb() -> None:
    # Three tables, seat 0 nets 300, -60, 0 (mean 80): (300 - 80) / 20 bb = 11 bb = 11,000 mbb.
    block = _block(
        0,
        ("a", 1, 0, 300),
        ("b", 1, 1, -300),
        ("c", 2, 0, -60),
        ("d", 2, 1, 60),
        ("e", 3, 0, 0),
        ("f", 3, 1, 0),
    )
    scores = {play.player: score for play, score in play_scores(block)}
    assert scores == {
        "a": 11_000,
        "c": -7_000,
        "e": -4_000,
        "b": -11_000,
        "d": 7_000,
        "f": 4_000,
    }
    assert all(isinstance(score, Fraction) for score in scores.values())


def test_a_seat_position_of_one_entrant_is_not_scored() -> None:
    # Table 2's seat 1 was an absent player (left out of the block): seat 1 has one
    # entrant, nobody to compare it with.
    block = _block(0, ("a", 1, 0, 40), ("b", 1, 1, -40), ("c", 2, 0, -20))
    scores = {play.player: score for play, score in play_scores(block)}
    assert scores == {"a": 1_500, "c": -1_500}


def test_exact_thirds_stay_exact_and_positions_sum_to_zero() -> None:
    block = _block(0, ("a", 1, 0, 10), ("b", 2, 0, 0), ("c", 3, 0, 0), big_blind=40)
    scores = [score for _, score in play_scores(block)]
    assert scores == [Fraction(500, 3), Fraction(-250, 3), Fraction(-250, 3)]
    assert sum(scores) == 0


def test_matrix_pools_a_bots_plays_per_block_and_means_over_its_blocks() -> None:
    blocks = [
        _block(0, ("x1", 1, 0, 100), ("y", 1, 1, -100), ("x2", 2, 0, -100), ("z", 2, 1, 100)),
        _block(1, ("x1", 1, 0, 40), ("y", 1, 1, -40), ("w", 2, 0, 0), ("z", 2, 1, 0)),
    ]
    bot = {"x1": "x", "x2": "x", "y": "y", "z": "z", "w": "w"}.__getitem__
    matrix = score_matrix(blocks, bot)
    # Block 0: x1 +5,000 and x2 -5,000 (seat 0 mean 0): x's block score is their mean, 0.
    # Block 1: seat 0 nets 40 and 0: x1 +1,000, w -1,000; seat 1: y -1,000, z +1,000.
    assert matrix.names == ("w", "x", "y", "z")
    assert matrix.column("x") == (0.0, 1_000.0)
    assert matrix.column("w") == (None, -1_000.0)
    assert matrix.mean("x") == 500 and matrix.mean("w") == -1_000
    assert matrix.plays == (1, 3, 2, 2)


def test_adjusted_scores_use_the_adjusted_nets() -> None:
    block = DealBlock(
        "e",
        1,
        1,
        0,
        20,
        (SeatPlay("a", 1, 0, 1000, Fraction(600)), SeatPlay("b", 2, 0, -1000, Fraction(-600))),
    )
    assert [score for _, score in play_scores(block, adjusted=True)] == [30_000, -30_000]
    with pytest.raises(ValueError, match="no adjusted net"):
        list(play_scores(_block(0, ("a", 1, 0, 0), ("b", 2, 0, 0)), adjusted=True))


# -- the bootstrap ----------------------------------------------------------------------


def test_partial_bootstrap_draws_the_same_blocks_as_the_full_one() -> None:
    rng = random.Random(1)
    columns = [[rng.uniform(-50, 50) for _ in range(40)] for _ in range(3)]
    full = bootstrap_means(columns, seed=9, resamples=200)
    partial = bootstrap_partial_means(columns, seed=9, resamples=200)
    for row_full, row_partial in zip(full, partial, strict=True):
        assert row_partial == pytest.approx(row_full, rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("chunk", [1 << 22, 100])
def test_partial_bootstrap_draws_what_python_random_draws(
    chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The draws are made by NumPy, a chunk of resamples at a time; they must be exactly
    # random.Random(seed).choices(range(count), k=count), resample after resample, so
    # that a leaderboard's numbers do not depend on how they were computed.
    import numpy as np

    from dp_arena.ratings import blocks

    monkeypatch.setattr(blocks, "_DRAWS_PER_CHUNK", chunk)  # 100: chunks of 2 resamples
    rng = random.Random(3)
    columns = [[rng.uniform(-50, 50) if rng.random() < 0.8 else None for _ in range(41)]]
    columns.append([rng.uniform(-50, 50) for _ in range(41)])
    values = np.array([[0.0 if v is None else v for v in column] for column in columns]).T
    present = np.array([[v is not None for v in column] for column in columns], dtype=float).T
    draws = random.Random(12)
    expected = []
    for _ in range(25):
        drawn = np.bincount(draws.choices(range(41), k=41), minlength=41).astype(float)
        totals, played = drawn @ values, drawn @ present
        expected.append(
            tuple(None if w == 0 else float(t / w) for t, w in zip(totals, played, strict=True))
        )
    assert bootstrap_partial_means(columns, seed=12, resamples=25) == expected


def test_the_bootstrap_resamples_whole_blocks() -> None:
    # In every block the two seat-position rivals score +s and -s. Resampling whole
    # blocks keeps that: every resample's two means are exact opposites. Resampling the
    # plays one by one would almost never give opposites.
    rng = random.Random(2)
    values = [rng.uniform(-1000, 1000) for _ in range(60)]
    samples = bootstrap_partial_means([values, [-v for v in values]], seed=4, resamples=500)
    assert all(
        a is not None and b is not None and a == pytest.approx(-b, abs=1e-9) for a, b in samples
    )
    assert len({round(a, 6) for a, _ in samples}) > 400  # and the resamples do differ


def test_a_competitor_is_averaged_over_the_drawn_blocks_it_played() -> None:
    # "a" played only the first 10 of 30 blocks, always scoring 7: whatever blocks a
    # resample draws, its mean over the ones it played is 7 (or it drew none of them).
    a = [7.0] * 10 + [None] * 20
    b = [float(index) for index in range(30)]
    samples = bootstrap_partial_means([a, b], seed=5, resamples=300)
    assert {sample[0] for sample in samples} <= {7.0, None}
    assert sum(sample[0] is None for sample in samples) < 3  # (2/3)^30 per resample


def _matrix(columns: dict[str, list[float | None]]):  # type: ignore[no-untyped-def]
    """A score matrix of given block scores (one play per score)."""
    from dp_arena.ratings.duplicate import ScoreMatrix

    names = tuple(sorted(columns))
    count = len(next(iter(columns.values())))
    scores = tuple(tuple(columns[name]) for name in names)
    sums = tuple(
        sum((Fraction(v) for v in column if v is not None), Fraction(0)) for column in scores
    )
    plays = tuple(sum(v is not None for v in column) for column in scores)
    return ScoreMatrix(names, tuple(("e", 1, 1, d) for d in range(count)), scores, plays, sums)


def test_interval_of_a_fair_coin_matches_the_binomial() -> None:
    # Blocks scoring 0 or 1000 half the time: a resampled mean is 1000 x Binomial(n, 1/2)/n,
    # so the 95% interval is about 500 +- 1.96 x 1000 x sqrt(1/4n) (n = 400: +-49).
    blocks = 400
    ranking = rank_with_uncertainty(
        _matrix(
            {"coin": [1000.0 * (index % 2) for index in range(blocks)], "zero": [0.0] * blocks}
        ),
        seed=3,
        resamples=2000,
    )
    coin = ranking.entry("coin")
    half_width = NormalDist().inv_cdf(0.975) * 1000 * math.sqrt(0.25 / blocks)
    assert coin.mean == 500
    assert coin.low == pytest.approx(500 - half_width, abs=6)
    assert coin.high == pytest.approx(500 + half_width, abs=6)
    assert coin.error == pytest.approx(1000 * math.sqrt(0.25 / blocks), rel=0.06)
    # "zero" always scores 0, so it is beaten exactly when the coin's mean is above 0.
    assert ranking.p_beats("coin", "zero") == 1.0
    assert (ranking.entry("zero").low, ranking.entry("zero").high) == (0.0, 0.0)


def test_clear_order_gives_certain_ranks_and_pairwise_chances() -> None:
    rng = random.Random(8)
    columns: dict[str, list[float | None]] = {"a": [], "b": [], "c": []}
    for _ in range(200):
        noise = rng.uniform(-10, 10)
        columns["a"].append(300 + noise)
        columns["b"].append(0 - noise)
        columns["c"].append(-300 + rng.uniform(-10, 10))
    ranking = rank_with_uncertainty(_matrix(columns), seed=1, resamples=300)
    assert ranking.names == ("a", "b", "c")
    assert [(e.rank, e.rank_low, e.rank_high, e.first) for e in ranking.entries] == [
        (1, 1, 1, 1.0),
        (2, 2, 2, 0.0),
        (3, 3, 3, 0.0),
    ]
    assert ranking.beats == ((None, 1.0, 1.0), (0.0, None, 1.0), (0.0, 0.0, None))


def test_close_bots_share_ranks_and_chances() -> None:
    rng = random.Random(12)
    values = [rng.gauss(0, 1000) for _ in range(100)]
    centre = sum(values) / len(values)
    # Rivals in one seat position, 10 mbb apart where the standard error is about 200.
    columns: dict[str, list[float | None]] = {
        "a": [value - centre + 5 for value in values],
        "b": [centre - value - 5 for value in values],
    }
    ranking = rank_with_uncertainty(_matrix(columns), seed=2, resamples=1000)
    a, b = ranking.entry("a"), ranking.entry("b")
    assert (a.rank_low, a.rank_high, b.rank_low, b.rank_high) == (1, 2, 1, 2)
    assert 0.05 < a.first < 0.95 and a.first + b.first == pytest.approx(1)
    assert ranking.p_beats("a", "b") + ranking.p_beats("b", "a") == pytest.approx(1)
    assert a.low < 0 < a.high


def test_deals_needed_by_hand() -> None:
    z = NormalDist().inv_cdf(0.975) + NormalDist().inv_cdf(0.8)  # 2.8016
    # se 10 over 100 blocks, margin 28: 100 x (2.8016 x 10 / 28)^2 = 100.11 -> 101.
    assert deals_needed(10.0, 100, 28.0) == math.ceil(100 * (z * 10 / 28) ** 2) == 101
    # Halving the margin needs four times the deals; doubling the error too.
    assert deals_needed(10.0, 100, 14.0) == math.ceil(400 * (z * 10 / 28) ** 2)
    assert deals_needed(20.0, 100, 28.0) == math.ceil(400 * (z * 10 / 28) ** 2)


def test_deals_needed_is_right_for_normal_blocks() -> None:
    # Two bots whose per-block difference has standard deviation 1000: separating them
    # at 100 mbb needs ((1.96 + 0.84) x 1000 / 100)^2 = 785 blocks, whatever the event size.
    rng = random.Random(4)
    for blocks in (200, 800):
        differences = [rng.gauss(0, 1000) for _ in range(blocks)]
        ranking = rank_with_uncertainty(
            _matrix({"a": [d / 2 for d in differences], "b": [-d / 2 for d in differences]}),
            seed=0,
            resamples=1000,
        )
        assert ranking.deals_to_separate("a", "b", 100.0) == pytest.approx(785, rel=0.2)


# -- real matches -----------------------------------------------------------------------


def test_two_copies_of_a_deterministic_bot_tie_exactly() -> None:
    config = MatchConfig(("tag", "tag"), deals=60, seed=5)
    result = play_match(config, trusted=True)
    matrix = score_matrix(table_blocks("m", result.tables, config.rules()), lambda player: player)
    assert matrix.names == ("tag#1", "tag#2")
    assert matrix.mean("tag#1") == matrix.mean("tag#2") == 0
    # They play the same cards the same way: the luck-adjusted nets cancel too.
    assert all(score == 0 for scores in result.adjusted_block_scores for score in scores)
    ranking = rank_with_uncertainty(matrix, seed=0, resamples=200)
    assert [entry.rank for entry in ranking.entries] == [1, 1]
    assert ranking.p_beats("tag#1", "tag#2") == 0.5
    assert [entry.first for entry in ranking.entries] == [0.5, 0.5]


def test_two_copies_of_a_random_bot_are_not_told_apart() -> None:
    config = MatchConfig(("random", "random", "tag"), deals=80, seed=6)
    result = play_match(config, trusted=True)
    matrix = score_matrix(table_blocks("m", result.tables, config.rules()), lambda player: player)
    ranking = rank_with_uncertainty(matrix, seed=0, resamples=500)
    first, second = ranking.entry("random#1"), ranking.entry("random#2")
    assert first.mean != second.mean  # they did play differently
    assert first.low < second.mean < first.high and second.low < first.mean < second.high
    assert 0.025 < ranking.p_beats("random#1", "random#2") < 0.975


def test_scores_agree_with_the_match_commands_own_scoring() -> None:
    config = MatchConfig(("tag", "aggressive", "calling-station"), deals=40, seed=2)
    result = play_match(config, trusted=True)
    matrix = score_matrix(table_blocks("m", result.tables, config.rules()), lambda player: player)
    expected = block_scores(result.tables, result.seatings, config.big_blind)
    for agent, name in enumerate(result.names):
        assert matrix.column(name) == tuple(float(score) for score in expected[agent])
        assert matrix.mean(name) == sum(expected[agent]) / config.deals
    # The same for the luck-adjusted scores, read through the blocks of the deal records.
    adjusted = score_matrix(
        table_blocks("m", result.tables, config.rules(), adjust=corrected_nets),
        lambda player: player,
        adjusted=True,
    )
    for agent, name in enumerate(result.names):
        assert adjusted.column(name) == result.adjusted_block_scores[agent]
        summary = result.scores[agent].adjusted
        assert summary is not None and summary.mean == pytest.approx(float(adjusted.mean(name)))
    assert sum(adjusted.mean(name) for name in result.names) == 0
