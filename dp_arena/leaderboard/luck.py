"""The luck meter: how well does a classic freezeout, and how well does a duplicate event
of the same number of deals, find the true order of a field of bots?

1. **The truth**, measured, not assumed: one long duplicate match of the whole field
   (every rotation of the bots round the seats, ``truth_deals`` deals). A pair of bots
   counts as *known* when its order comes out the same in at least ``sure`` (95%) of
   the block bootstrap's resamples.
2. For each seed: a classic freezeout of the field (docs/formats.md: no cap, rising blinds,
   stacks carried from hand to hand; the order is the finishing order) and a duplicate
   match of the same field dealing as many hands in all (``k`` mirrored tables of ``k``
   bots, ``round(hands / k)`` deals each; the order is the duplicate score).
3. Each event's order is compared with the truth by **Kendall's tau over the known
   pairs**: (pairs in the truth's order - pairs reversed) / known pairs, a tie in the
   event counting for neither; it is Kendall's tau whenever the truth separates every
   pair. Spearman's rho against the truth's scores, and how often the truth's best bot
   finishes alone on top, are reported beside it.

Everything is seeded: the same settings give the same report.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dp_arena.match import MatchConfig, play_match
from dp_arena.ratings.duplicate import score_matrix
from dp_arena.ratings.order import spearman_rho
from dp_arena.ratings.runs import table_blocks
from dp_arena.ratings.uncertainty import rank_with_uncertainty
from dp_arena.tournament.classic.play import ClassicSettings, play_classic
from dp_arena.tournament.config import Entrant

__all__ = [
    "DEFAULT_FIELD",
    "MAX_SEEDS",
    "LuckReport",
    "LuckSettings",
    "Trial",
    "Truth",
    "known_pair_tau",
    "measure_truth",
    "plot_luck",
    "run_luck",
    "run_trial",
]

DEFAULT_FIELD = ("random", "calling-station", "aggressive", "tag", "equity", "learned")
METHODS = ("classic", "duplicate")
MAX_SEEDS = 10_000  # trials: 30 already take minutes


@dataclass(frozen=True, slots=True)
class LuckSettings:
    """The experiment: the field of ``bots`` (specs), the ``seeds`` of the trials, the
    length and seed of the truth match, how sure the truth must be of a pair, the
    freezeout's settings, and the ``lengths`` to compare at: a classic event of length
    ``m`` is a series of ``m`` freezeouts (ranked by mean finishing place), measured
    against a duplicate match of as many hands."""

    bots: tuple[str, ...] = DEFAULT_FIELD
    seeds: tuple[int, ...] = tuple(range(1, 31))
    truth_deals: int = 1500
    truth_seed: int = 1_000_003
    sure: float = 0.95
    resamples: int = 1000
    classic: ClassicSettings = field(default_factory=ClassicSettings)
    lengths: tuple[int, ...] = (1,)  # freezeouts per classic event (a series when > 1)

    def __post_init__(self) -> None:
        if not 2 <= len(self.bots) <= 10 or len(set(self.bots)) != len(self.bots):
            raise ValueError("the field needs 2 to 10 different bots")
        if not 1 <= len(self.seeds) <= MAX_SEEDS:
            raise ValueError(f"give 1 to {MAX_SEEDS:_} seeds, not {len(self.seeds):_}")
        if not 2 <= self.truth_deals <= 100_000:
            raise ValueError(f"the truth match plays 2 to 100_000 deals, not {self.truth_deals}")
        if not self.lengths or min(self.lengths) < 1 or max(self.lengths) > 1_000:
            raise ValueError("every length must be 1 to 1_000 freezeouts")


@dataclass(frozen=True, slots=True)
class Truth:
    """The long match's result: each bot's score (mbb/deal) with its 95% interval, best
    first, and the pairs (better, worse) whose order it is sure of."""

    deals: int
    seed: int
    scores: tuple[tuple[str, float, float, float], ...]
    known_pairs: tuple[tuple[str, str], ...]

    @property
    def means(self) -> dict[str, float]:
        return {name: mean for name, mean, _, _ in self.scores}

    @property
    def best(self) -> str | None:
        """The bot the truth is sure beats every other, if there is one."""
        name = self.scores[0][0]
        beaten = {worse for better, worse in self.known_pairs if better == name}
        return name if len(beaten) == len(self.scores) - 1 else None


@dataclass(frozen=True, slots=True)
class Trial:
    """One seed at one length: the table-hands of the ``freezeouts``, the duplicate
    match's deals per table, each event's order as scores (higher is better: minus the
    mean finishing place in the freezeouts, the duplicate score in the match), and their
    agreement with the truth."""

    seed: int
    freezeouts: int
    hands: int
    duplicate_deals: int
    classic_scores: tuple[tuple[str, float], ...]
    duplicate_scores: tuple[tuple[str, float], ...]
    tau: tuple[float, float]  # classic, duplicate
    rho: tuple[float, float]
    winner: tuple[bool, bool]


@dataclass(frozen=True, slots=True)
class LuckReport:
    settings: LuckSettings
    truth: Truth
    trials: tuple[Trial, ...]

    def at(self, freezeouts: int) -> list[Trial]:
        return [trial for trial in self.trials if trial.freezeouts == freezeouts]

    def summary(self, method: str, freezeouts: int | None = None) -> dict[str, float]:
        """Mean, standard deviation and quantiles of the method's tau at a length (the
        first by default), its mean rho, the mean hands per event, and the share of
        trials that put the truth's best bot alone on top."""
        index = METHODS.index(method)
        trials = self.at(self.settings.lengths[0] if freezeouts is None else freezeouts)
        taus = sorted(trial.tau[index] for trial in trials)
        return {
            "hands_mean": statistics.fmean(trial.hands for trial in trials),
            "tau_mean": statistics.fmean(taus),
            "tau_sd": statistics.stdev(taus) if len(taus) > 1 else 0.0,
            "tau_median": statistics.median(taus),
            "tau_q10": _quantile(taus, 0.1),
            "tau_q90": _quantile(taus, 0.9),
            "tau_min": taus[0],
            "tau_max": taus[-1],
            "rho_mean": statistics.fmean(trial.rho[index] for trial in trials),
            "perfect_share": sum(tau == 1.0 for tau in taus) / len(taus),
            "winner_share": sum(trial.winner[index] for trial in trials) / len(taus),
        }

    def pooled(self, method: str) -> tuple[dict[str, float], float]:
        """The method's order over all trials together (their scores or finishing places
        averaged, weighted by hands) and its tau against the truth: a check that the
        method, given many events, finds the same order as the truth (so what one event
        misses is luck, not a different skill)."""
        index = METHODS.index(method)
        totals: dict[str, float] = {}
        for trial in self.trials:
            weight = trial.hands / sum(other.hands for other in self.trials)
            for name, value in (trial.classic_scores, trial.duplicate_scores)[index]:
                totals[name] = totals.get(name, 0.0) + value * weight
        return totals, known_pair_tau(self.truth.known_pairs, totals)

    def to_json(self) -> dict[str, Any]:
        def rounded(value: float) -> float:
            return round(value, 4) + 0.0

        return {
            "field": list(self.settings.bots),
            "seeds": list(self.settings.seeds),
            "truth": {
                "deals": self.truth.deals,
                "seed": self.truth.seed,
                "sure": self.settings.sure,
                "scores": [
                    {"bot": n, "mbb_per_deal": rounded(m), "ci": [rounded(lo), rounded(hi)]}
                    for n, m, lo, hi in self.truth.scores
                ],
                "known_pairs": [list(pair) for pair in self.truth.known_pairs],
            },
            "lengths": list(self.settings.lengths),
            "summary": {
                method: {
                    "pooled_tau": rounded(self.pooled(method)[1]),
                    "by_length": {
                        str(length): {
                            key: rounded(value)
                            for key, value in self.summary(method, length).items()
                        }
                        for length in self.settings.lengths
                    },
                }
                for method in METHODS
            },
            "trials": [
                {
                    "seed": trial.seed,
                    "freezeouts": trial.freezeouts,
                    "hands": trial.hands,
                    "duplicate_deals_per_table": trial.duplicate_deals,
                    "classic": {
                        "tau": rounded(trial.tau[0]),
                        "rho": rounded(trial.rho[0]),
                        "winner": trial.winner[0],
                        "order": {name: rounded(value) for name, value in trial.classic_scores},
                    },
                    "duplicate": {
                        "tau": rounded(trial.tau[1]),
                        "rho": rounded(trial.rho[1]),
                        "winner": trial.winner[1],
                        "order": {name: rounded(value) for name, value in trial.duplicate_scores},
                    },
                }
                for trial in self.trials
            ],
        }


def _quantile(ordered: Sequence[float], probability: float) -> float:
    position = probability * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def known_pair_tau(known_pairs: Sequence[tuple[str, str]], scores: dict[str, float]) -> float:
    """(known pairs the scores order the same way - pairs they reverse) / known pairs;
    a tie in ``scores`` counts for neither.

    >>> known_pair_tau([("a", "b"), ("a", "c")], {"a": 3, "b": 1, "c": 5})
    0.0
    >>> known_pair_tau([("a", "b"), ("a", "c"), ("b", "c")], {"a": 3, "b": 2, "c": 2})
    0.6666666666666666
    """
    if not known_pairs:
        raise ValueError("the truth is sure of no pair: nothing to measure against")
    agreement = sum(
        (scores[better] > scores[worse]) - (scores[better] < scores[worse])
        for better, worse in known_pairs
    )
    return agreement / len(known_pairs)


def _duplicate_scores(config: MatchConfig) -> tuple[dict[str, float], Any]:
    """Each bot's duplicate score (mbb/deal) in a match of ``config``, and its matrix."""
    result = play_match(config, trusted=True, adjusted=False, clairvoyance=False)  # raw scores
    names = dict(zip(result.names, config.specs, strict=True))
    matrix = score_matrix(
        table_blocks(f"match-{config.seed}", result.tables, config.rules()), names.__getitem__
    )
    return {name: float(matrix.mean(name)) for name in matrix.names}, matrix


def measure_truth(settings: LuckSettings) -> Truth:
    """The long duplicate match of the field, and the pairs it is sure of."""
    config = MatchConfig(settings.bots, deals=settings.truth_deals, seed=settings.truth_seed)
    _, matrix = _duplicate_scores(config)
    ranking = rank_with_uncertainty(matrix, seed=settings.truth_seed, resamples=settings.resamples)
    known = [
        (better, worse)
        for better in ranking.names
        for worse in ranking.names
        if better != worse and ranking.p_beats(better, worse) >= settings.sure
    ]
    return Truth(
        deals=settings.truth_deals,
        seed=settings.truth_seed,
        scores=tuple((e.name, e.mean, e.low, e.high) for e in ranking.entries),
        known_pairs=tuple(known),
    )


def _classic_scores(
    settings: LuckSettings, seed: int, freezeouts: int
) -> tuple[dict[str, float], int]:
    """Minus each bot's mean finishing place over a series of ``freezeouts`` (seeded
    from ``seed``), and the table-hands they dealt."""
    entrants = [Entrant(spec, spec, True, spec) for spec in settings.bots]
    totals = dict.fromkeys(settings.bots, 0.0)
    hands = 0
    for number in range(freezeouts):
        series_seed = seed if freezeouts == 1 else seed * 1000 + number
        outcome = play_classic(
            entrants, event=f"luck-{series_seed}", seed=series_seed, settings=settings.classic
        )
        hands += outcome.hands_played
        place = 1
        for group in outcome.finishing_order:
            for player in group:  # a group shares its places: each gets their mean
                totals[player] -= (place + (len(group) - 1) / 2) / freezeouts
            place += len(group)
    return totals, hands


def run_trial(settings: LuckSettings, truth: Truth, seed: int, freezeouts: int = 1) -> Trial:
    """A classic event of ``freezeouts`` freezeouts and a duplicate match of as many
    hands, both seeded from ``seed``."""
    classic_scores, hands = _classic_scores(settings, seed, freezeouts)
    seats = len(settings.bots)
    deals = max(1, round(hands / seats))
    duplicate_scores, _ = _duplicate_scores(MatchConfig(settings.bots, deals=deals, seed=seed))
    best = truth.best
    taus, rhos, winners = [], [], []
    for scores in (classic_scores, duplicate_scores):
        taus.append(known_pair_tau(truth.known_pairs, scores))
        rhos.append(spearman_rho(truth.means, scores))
        top = max(scores.values())
        winners.append(
            best is not None
            and scores[best] == top
            and sum(value == top for value in scores.values()) == 1
        )
    return Trial(
        seed=seed,
        freezeouts=freezeouts,
        hands=hands,
        duplicate_deals=deals,
        classic_scores=tuple(sorted(classic_scores.items(), key=lambda item: -item[1])),
        duplicate_scores=tuple(sorted(duplicate_scores.items(), key=lambda item: -item[1])),
        tau=(taus[0], taus[1]),
        rho=(rhos[0], rhos[1]),
        winner=(winners[0], winners[1]),
    )


def run_luck(settings: LuckSettings, progress: Callable[[str], None] | None = None) -> LuckReport:
    """The whole experiment; ``progress`` is told what is being played."""
    tell = progress or (lambda message: None)
    tell(f"truth: a duplicate match of {settings.truth_deals} deals at {len(settings.bots)} tables")
    truth = measure_truth(settings)
    trials = []
    for length in settings.lengths:
        for number, seed in enumerate(settings.seeds, start=1):
            tell(
                f"{length} freezeout(s) a trial: trial {number}/{len(settings.seeds)} (seed {seed})"
            )
            trials.append(run_trial(settings, truth, seed, length))
    return LuckReport(settings, truth, tuple(trials))


COLORS = {"classic": "#d55e00", "duplicate": "#0072b2"}
LABELS = {"classic": "classic freezeout", "duplicate": "duplicate, as many hands"}


def plot_luck(report: LuckReport, path: Path) -> None:
    """The headline figure: each method's tau against the truth (a box per method with
    one length; mean and 10-90% band against the hands played with several), and how
    often each put the best bot alone on top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(
        1, 2, figsize=(10.5, 4.6), gridspec_kw={"width_ratios": [2.2, 1]}
    )
    lengths = report.settings.lengths
    if len(lengths) == 1:
        _plot_boxes(report, left, right)
    else:
        _plot_lengths(report, left, right)
    left.axhline(0, color="#999", linewidth=0.8)
    left.axhline(1, color="#999", linewidth=0.8, linestyle=":")
    left.set_ylim(-1.05, 1.1)
    left.set_ylabel("Kendall's tau against the true order")
    right.set_ylim(0, 1.1)
    best = report.truth.best
    right.set_title(
        f"{best}, the best bot, alone on top" if best else "no bot is surely best", fontsize=10
    )
    figure.suptitle("The same bots, the same number of hands: which event finds the true order?")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(figure)


def _plot_boxes(report: LuckReport, left: Any, right: Any) -> None:
    for position, method in enumerate(METHODS):
        index = METHODS.index(method)
        taus = [trial.tau[index] for trial in report.trials]
        left.boxplot(
            [taus],
            positions=[position],
            widths=0.45,
            showfliers=False,
            medianprops={"color": COLORS[method], "linewidth": 2},
        )
        # A fixed, seed-derived jitter: the figure is the same every time.
        offsets = [((trial.seed * 7919) % 101 / 100 - 0.5) * 0.3 for trial in report.trials]
        left.scatter(
            [position + offset for offset in offsets], taus, s=18, alpha=0.6, color=COLORS[method]
        )
        summary = report.summary(method)
        left.scatter([position], [summary["tau_mean"]], marker="D", s=50, color="black", zorder=3)
        left.annotate(
            f"mean {summary['tau_mean']:+.2f}\nsd {summary['tau_sd']:.2f}",
            (position + 0.3, summary["tau_mean"]),
            fontsize=9,
            va="center",
        )
    left.set_xticks(range(len(METHODS)), [LABELS[method] for method in METHODS])
    hands = report.summary("classic")["hands_mean"]
    left.set_title(
        f"{len(report.trials)} seeds, {len(report.settings.bots)} bots,"
        f" {hands:.0f} hands per event on average",
        fontsize=10,
    )
    shares = [report.summary(method)["winner_share"] for method in METHODS]
    right.bar([LABELS[method] for method in METHODS], shares, color=[COLORS[m] for m in METHODS])
    for position, share in enumerate(shares):
        right.text(position, share + 0.02, f"{share:.0%}", ha="center", fontsize=10)
    right.tick_params(axis="x", labelsize=8)


def _plot_lengths(report: LuckReport, left: Any, right: Any) -> None:
    lengths = report.settings.lengths
    for method in METHODS:
        summaries = [report.summary(method, length) for length in lengths]
        hands = [summary["hands_mean"] for summary in summaries]
        left.plot(
            hands,
            [summary["tau_mean"] for summary in summaries],
            marker="o",
            color=COLORS[method],
            label=LABELS[method],
        )
        left.fill_between(
            hands,
            [summary["tau_q10"] for summary in summaries],
            [summary["tau_q90"] for summary in summaries],
            color=COLORS[method],
            alpha=0.15,
        )
        right.plot(
            hands,
            [summary["winner_share"] for summary in summaries],
            marker="o",
            color=COLORS[method],
        )
    hands = [report.summary("classic", length)["hands_mean"] for length in lengths]
    ticks = [f"{count:.0f}\n({length} fr.)" for count, length in zip(hands, lengths, strict=True)]
    for axis in (left, right):
        axis.set_xscale("log")
        axis.minorticks_off()
        axis.set_xticks(hands, ticks, fontsize=8)
        axis.set_xlabel("hands per event (freezeouts in the classic series)", fontsize=9)
    left.legend(loc="lower right", fontsize=9)
    left.set_title(
        f"{len(report.settings.seeds)} seeds at each length, {len(report.settings.bots)} bots;"
        " mean and 10-90% band",
        fontsize=10,
    )
