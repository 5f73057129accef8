"""Rank agreement statistics against hand counts and scipy, and the luck meter on a small
field: its truth, its trials of equal deal counts, its report and figure."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

from dp_arena.cli import main
from dp_arena.leaderboard.luck import (
    LuckReport,
    LuckSettings,
    Trial,
    Truth,
    known_pair_tau,
    plot_luck,
    run_luck,
)
from dp_arena.ratings.order import average_ranks, kendall_tau, spearman_rho


def test_kendall_tau_by_counting_pairs() -> None:
    truth = {"a": 4, "b": 3, "c": 2, "d": 1}
    # b and c swapped: 5 concordant pairs, 1 discordant, of 6: (5 - 1) / 6.
    assert kendall_tau(truth, {"a": 4, "b": 2, "c": 3, "d": 1}) == pytest.approx(4 / 6)
    # Reversed: every pair discordant.
    assert kendall_tau(truth, {"a": 1, "b": 2, "c": 3, "d": 4}) == -1
    # Everyone tied: no information.
    assert kendall_tau(truth, dict.fromkeys(truth, 0)) == 0


def test_average_ranks_share_ties() -> None:
    assert average_ranks({"a": 5, "b": 7, "c": 5, "d": 1}) == {"b": 1, "a": 2.5, "c": 2.5, "d": 4}


def test_agreement_matches_scipy_with_ties() -> None:
    stats = pytest.importorskip("scipy.stats")
    rng = random.Random(3)
    for _ in range(50):
        names = [f"bot{i}" for i in range(rng.randint(3, 9))]
        first = {name: rng.randint(0, 4) for name in names}
        second = {name: rng.randint(0, 4) for name in names}
        x = [first[n] for n in names]
        y = [second[n] for n in names]
        if len(set(x)) < 2 or len(set(y)) < 2:
            continue
        assert kendall_tau(first, second) == pytest.approx(stats.kendalltau(x, y).statistic)
        assert spearman_rho(first, second) == pytest.approx(stats.spearmanr(x, y).statistic)


def test_orders_of_different_competitors_are_refused() -> None:
    with pytest.raises(ValueError, match="different competitors"):
        kendall_tau({"a": 1, "b": 2}, {"a": 1, "c": 2})


def test_known_pair_tau_is_kendall_tau_when_every_pair_is_known() -> None:
    truth = {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}
    pairs = [(x, y) for x, y in itertools.permutations(truth, 2) if truth[x] > truth[y]]
    for values in itertools.permutations(range(4)):
        scores = dict(zip(truth, map(float, values), strict=True))
        assert known_pair_tau(pairs, scores) == pytest.approx(kendall_tau(truth, scores))


@pytest.fixture(scope="module")
def small_report() -> LuckReport:
    settings = LuckSettings(
        bots=("random", "tag", "calling-station"), seeds=(1, 2, 3), truth_deals=200
    )
    return run_luck(settings)


def test_the_truth_is_measured_by_a_long_duplicate_match(small_report: LuckReport) -> None:
    truth = small_report.truth
    assert truth.deals == 200
    assert {name for name, *_ in truth.scores} == {"random", "tag", "calling-station"}
    means = [mean for _, mean, _, _ in truth.scores]
    assert means == sorted(means, reverse=True)
    assert abs(sum(means)) < 1e-6  # duplicate scores of one match sum to zero
    for better, worse in truth.known_pairs:
        assert truth.means[better] > truth.means[worse]
    # 200 deals are enough to be sure the tight-aggressive bot beats the calling station.
    assert ("tag", "calling-station") in truth.known_pairs


def test_each_trial_compares_events_of_equal_deal_counts(small_report: LuckReport) -> None:
    for trial in small_report.trials:
        # k mirrored tables of k bots, round(hands / k) deals: as many hands in all (+-k/2).
        assert abs(3 * trial.duplicate_deals - trial.hands) <= 1.5 or trial.duplicate_deals == 1
        classic = dict(trial.classic_scores)
        duplicate = dict(trial.duplicate_scores)
        assert set(classic) == set(duplicate) == {"random", "tag", "calling-station"}
        assert sorted(-value for value in classic.values()) in (
            [1, 2, 3],
            [1, 2.5, 2.5],
            [1.5, 1.5, 3],
            [2, 2, 2],
        )
        assert trial.tau == (
            known_pair_tau(small_report.truth.known_pairs, classic),
            known_pair_tau(small_report.truth.known_pairs, duplicate),
        )


def test_the_report_is_reproducible_and_plots(small_report: LuckReport, tmp_path: Path) -> None:
    again = run_luck(small_report.settings)
    assert again.to_json() == small_report.to_json()
    data = small_report.to_json()
    assert set(data["summary"]) == {"classic", "duplicate"}
    assert set(data["summary"]["classic"]["by_length"]) == {"1"}
    assert len(data["trials"]) == 3
    json.dumps(data)  # plain JSON
    plot_luck(small_report, tmp_path / "luck.png")
    assert (tmp_path / "luck.png").read_bytes().startswith(b"\x89PNG")


def test_summary_statistics_by_hand() -> None:
    truth = Truth(10, 1, (("a", 1.0, 0.5, 1.5), ("b", -1.0, -1.5, -0.5)), (("a", "b"),))
    trials = tuple(
        Trial(
            seed=seed,
            freezeouts=1,
            hands=10,
            duplicate_deals=5,
            classic_scores=(("a", -1.0), ("b", -2.0)),
            duplicate_scores=(("a", 1.0), ("b", -1.0)),
            tau=taus,
            rho=(0.0, 0.0),
            winner=(True, False),
        )
        for seed, taus in enumerate([(1.0, 1.0), (-1.0, 1.0), (1.0, 1.0), (1.0, -1.0)], start=1)
    )
    report = LuckReport(LuckSettings(bots=("a", "b"), seeds=(1, 2, 3, 4)), truth, trials)
    classic = report.summary("classic")
    assert classic["tau_mean"] == 0.5 and classic["tau_median"] == 1.0
    assert classic["tau_sd"] == pytest.approx(1.0)  # sample sd of 1, -1, 1, 1
    assert classic["perfect_share"] == 0.75 and classic["winner_share"] == 1.0
    assert classic["hands_mean"] == 10
    assert report.summary("duplicate")["winner_share"] == 0.0
    assert truth.best == "a"
    # Pooled over the trials, each method's order is a then b: tau 1 for both.
    assert report.pooled("classic") == ({"a": -1.0, "b": -2.0}, 1.0)


def test_a_series_of_freezeouts_is_matched_by_as_many_duplicate_hands() -> None:
    settings = LuckSettings(bots=("random", "tag"), seeds=(4,), truth_deals=200, lengths=(1, 3))
    report = run_luck(settings)
    single, series = report.at(1)[0], report.at(3)[0]
    assert series.hands > single.hands
    assert series.duplicate_deals == max(1, round(series.hands / 2))
    # Mean places of a two-bot series: places 1 and 2 averaged over three freezeouts.
    assert sum(-value for _, value in series.classic_scores) == pytest.approx(3)


def test_command_refuses_unknown_bots(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["luck", "--bots", "random,nobody"]) == 2
    assert "nobody" in capsys.readouterr().err
