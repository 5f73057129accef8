"""Block statistics against hand computations, printed t tables and (if installed) scipy."""

from __future__ import annotations

import math
import random

import pytest

from dp_arena.ratings import (
    bootstrap_interval,
    bootstrap_means,
    student_t_cdf,
    student_t_quantile,
    summarize_blocks,
)

# Two-sided 95% and 99% critical values t(0.975, df) and t(0.995, df) as printed in
# standard statistical tables (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2).
T_TABLE = {
    1: (12.706, 63.657),
    2: (4.303, 9.925),
    3: (3.182, 5.841),
    5: (2.571, 4.032),
    10: (2.228, 3.169),
    20: (2.086, 2.845),
    30: (2.042, 2.750),
    60: (2.000, 2.660),
    100: (1.984, 2.626),
}


@pytest.mark.parametrize("degrees", sorted(T_TABLE))
def test_t_quantiles_match_the_printed_table(degrees: int) -> None:
    t95, t99 = T_TABLE[degrees]
    assert student_t_quantile(0.975, degrees) == pytest.approx(t95, abs=5e-4)
    assert student_t_quantile(0.995, degrees) == pytest.approx(t99, abs=5e-4)


def test_t_quantile_tends_to_the_normal_quantile() -> None:
    assert student_t_quantile(0.975, 10**7) == pytest.approx(1.959964, abs=1e-5)
    assert student_t_quantile(0.995, 10**7) == pytest.approx(2.575829, abs=1e-5)


def test_t_with_one_and_two_degrees_of_freedom_has_closed_forms() -> None:
    # df = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/pi, so t(p) = tan(pi (p - 1/2)).
    # df = 2: F(t) = 1/2 + t / (2 sqrt(t^2 + 2)), so t(p) = (2p - 1) sqrt(2 / (1 - (2p - 1)^2)).
    for probability in (0.6, 0.9, 0.975, 0.999):
        assert student_t_quantile(probability, 1) == pytest.approx(
            math.tan(math.pi * (probability - 0.5)), rel=1e-9
        )
        u = 2 * probability - 1
        assert student_t_quantile(probability, 2) == pytest.approx(
            u * math.sqrt(2 / (1 - u * u)), rel=1e-9
        )
    for value in (-3.0, -0.5, 0.0, 0.7, 4.0):
        assert student_t_cdf(value, 1) == pytest.approx(0.5 + math.atan(value) / math.pi, abs=1e-12)
        assert student_t_cdf(value, 2) == pytest.approx(
            0.5 + value / (2 * math.sqrt(value * value + 2)), abs=1e-12
        )


def test_t_quantile_is_symmetric() -> None:
    assert student_t_quantile(0.025, 7) == pytest.approx(-student_t_quantile(0.975, 7), rel=1e-12)
    assert student_t_quantile(0.5, 7) == 0.0


def test_t_quantile_agrees_with_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    for degrees in (1, 2, 3, 4, 7, 15, 29, 99, 499, 5000):
        for probability in (0.6, 0.9, 0.95, 0.975, 0.99, 0.995, 0.9995):
            expected = float(stats.t.ppf(probability, degrees))
            assert student_t_quantile(probability, degrees) == pytest.approx(expected, rel=1e-8)


def test_summary_of_one_to_five() -> None:
    # mean 3; sample variance (4 + 1 + 0 + 1 + 4) / 4 = 2.5; standard error sqrt(2.5 / 5);
    # 95% half-width t(0.975, 4) = 2.776445 times that = 1.963243.
    summary = summarize_blocks([1, 2, 3, 4, 5])
    assert summary.count == 5 and summary.mean == 3.0
    assert summary.standard_deviation == pytest.approx(math.sqrt(2.5))
    assert summary.standard_error == pytest.approx(math.sqrt(0.5))
    assert summary.low == pytest.approx(3 - 1.963243, abs=1e-6)
    assert summary.high == pytest.approx(3 + 1.963243, abs=1e-6)
    assert summary.half_width == pytest.approx(1.963243, abs=1e-6)
    assert summary.excludes(0.5) and not summary.excludes(1.5)


def test_summary_of_two_blocks() -> None:
    # mean 1, sd sqrt(2), se 1, half-width t(0.975, 1) = 12.7062.
    summary = summarize_blocks([0, 2])
    assert summary.low == pytest.approx(1 - 12.7062, abs=1e-4)
    assert summary.high == pytest.approx(1 + 12.7062, abs=1e-4)


def test_summary_at_another_confidence() -> None:
    summary = summarize_blocks([1, 2, 3, 4, 5], confidence=0.99)  # t(0.995, 4) = 4.604095
    assert summary.half_width == pytest.approx(4.604095 * math.sqrt(0.5), abs=1e-5)


def test_summary_of_constant_blocks_has_no_width() -> None:
    summary = summarize_blocks([0.0] * 40)
    assert (summary.mean, summary.low, summary.high) == (0.0, 0.0, 0.0)
    assert not summary.excludes(0.0)


def test_summary_of_one_block_has_no_interval() -> None:
    summary = summarize_blocks([7.5])
    assert summary.mean == 7.5
    assert summary.low is summary.high is summary.standard_error is None
    assert not summary.excludes(0)


def test_summary_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="no block scores"):
        summarize_blocks([])
    with pytest.raises(ValueError, match="confidence"):
        summarize_blocks([1, 2], confidence=1.5)


def test_t_interval_covers_the_true_mean_about_95_percent_of_the_time() -> None:
    rng = random.Random(2024)
    trials = 2000
    covered = sum(
        not summarize_blocks([rng.gauss(10, 3) for _ in range(8)]).excludes(10)
        for _ in range(trials)
    )
    # Binomial(2000, 0.95): standard deviation ~ 9.7 hits; allow about 4 of them.
    assert abs(covered - 0.95 * trials) < 40


# -- bootstrap ---------------------------------------------------------------------------


def test_bootstrap_is_seeded() -> None:
    rng = random.Random(1)
    scores = [rng.uniform(-5, 5) for _ in range(50)]
    assert bootstrap_interval(scores, seed=3) == bootstrap_interval(scores, seed=3)
    assert bootstrap_interval(scores, seed=3) != bootstrap_interval(scores, seed=4)


def test_bootstrap_of_constant_blocks_is_that_constant() -> None:
    assert bootstrap_interval([2.5] * 30, seed=0) == (2.5, 2.5)


def test_bootstrap_resamples_whole_blocks() -> None:
    # Two blocks only: every resampled mean is 0 (both draws block 0), 50 (one of each)
    # or 100 (both block 1); nothing in between, so single values were never mixed.
    means = {sample[0] for sample in bootstrap_means([[0.0, 100.0]], seed=1, resamples=200)}
    assert means == {0.0, 50.0, 100.0}


def test_bootstrap_draws_the_same_blocks_for_every_column() -> None:
    rng = random.Random(5)
    base = [rng.gauss(0, 1) for _ in range(25)]
    shifted = [score + 1 for score in base]
    mirrored = [-score for score in base]
    for first, second, third in bootstrap_means([base, shifted, mirrored], seed=9, resamples=100):
        assert second - first == pytest.approx(1.0)
        assert first + third == pytest.approx(0.0, abs=1e-12)


def test_bootstrap_interval_is_close_to_the_t_interval_on_normal_data() -> None:
    rng = random.Random(77)
    scores = [rng.gauss(50, 20) for _ in range(400)]
    low, high = bootstrap_interval(scores, seed=1, resamples=2000)
    summary = summarize_blocks(scores)
    assert summary.low is not None and summary.high is not None
    width = summary.high - summary.low
    assert low == pytest.approx(summary.low, abs=0.1 * width)
    assert high == pytest.approx(summary.high, abs=0.1 * width)


def test_bootstrap_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="same, non-zero number"):
        bootstrap_means([[1.0], [1.0, 2.0]], seed=0)
    with pytest.raises(ValueError, match="same, non-zero number"):
        bootstrap_means([[]], seed=0)
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_means([[1.0]], seed=0, resamples=0)
