"""How much luck the board-luck correction takes out of duplicate scores, measured on
the same deals scored three ways: raw, all-in adjusted (the adjusted score before it)
and luck-adjusted.

1. **Variance per deal.** A heads-up and a 6-max duplicate match of the built-in bots;
   for each, the variance of every agent's per-deal score under each scoring, summed
   over the agents, and its ratios. A ratio r means the same interval needs r times the
   deals. The means must not move (the correction is unbiased): the largest |z| of an
   agent's mean luck-adjusted minus raw score is reported beside them.
2. **Deals to separate neighbours** on the built-in bots' leaderboard
   (``leaderboards/builtins``; its runs are played into ``runs/builtins`` when missing,
   as ``make leaderboard`` does): for every pair of neighbours, the deals an event
   would need at the leaderboard's margin, by each score.
"""

from __future__ import annotations

import math
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
MATCHES = {
    "heads-up: tag vs aggressive": (("tag", "aggressive"), 2000),
    "6-max: six built-ins": (
        ("random", "calling-station", "aggressive", "tag", "equity", "learned"),
        300,
    ),
}
SEED = 14


def _variances(specs: tuple[str, ...], deals: int) -> dict[str, Any]:
    from dp_arena.match import MatchConfig, play_match
    from dp_arena.ratings.board_luck import corrected_nets
    from dp_arena.ratings.duplicate import score_matrix
    from dp_arena.ratings.equity import all_in_nets
    from dp_arena.ratings.runs import NetAdjustment, table_blocks

    config = MatchConfig(specs, deals=deals, seed=SEED)
    result = play_match(config, trusted=True, adjusted=False)
    rules = config.rules()

    def columns(adjust: NetAdjustment | None) -> dict[str, list[float]]:
        blocks = table_blocks("bench", result.tables, rules, adjust=adjust)
        matrix = score_matrix(blocks, lambda player: player, adjusted=adjust is not None)
        return {name: matrix.played(name) for name in result.names}

    raw, all_in, luck = columns(None), columns(all_in_nets), columns(corrected_nets)

    def total(scores: dict[str, list[float]]) -> float:
        return sum(statistics.variance(column) for column in scores.values())

    z_scores = []
    for name in result.names:
        differences = [a - b for a, b in zip(luck[name], raw[name], strict=True)]
        spread = statistics.stdev(differences) / math.sqrt(len(differences))
        z_scores.append(abs(statistics.fmean(differences)) / spread if spread else 0.0)
    return {
        "agents": list(result.names),
        "deals": deals,
        "std_dev_raw": {name: round(statistics.stdev(raw[name]), 1) for name in raw},
        "luck_to_raw": round(total(luck) / total(raw), 3),
        "luck_to_all_in": round(total(luck) / total(all_in), 3),
        "all_in_to_raw": round(total(all_in) / total(raw), 3),
        "largest_z_of_mean_shift": round(max(z_scores), 2),
        "means_raw": {name: round(statistics.fmean(raw[name]), 1) for name in raw},
        "means_luck": {name: round(statistics.fmean(luck[name]), 1) for name in luck},
    }


def _builtin_runs() -> list[Path]:
    configs = sorted((REPO / "leaderboards" / "builtins" / "configs").glob("*.toml"))
    runs = []
    for config in configs:
        run_dir = REPO / "runs" / "builtins" / config.stem
        if not (run_dir / "results.json").is_file():
            arguments = ["run", str(config), "--run-dir", str(run_dir), "--executor", "serial"]
            subprocess.run(
                [sys.executable, "-m", "dp_arena.cli", *arguments, "--quiet"],
                check=True,
                stdout=subprocess.DEVNULL,
            )
        runs.append(run_dir)
    return runs


def _separation() -> dict[str, Any]:
    from dp_arena.leaderboard.adjusted import ALL_IN_EQUITY, BOARD_LUCK, AdjustedScore
    from dp_arena.leaderboard.model import LeaderboardOptions, build_leaderboard, load_runs

    runs = _builtin_runs()

    def separation(adjusted: AdjustedScore) -> list[dict[str, Any]]:
        events = load_runs(runs, adjust=adjusted.nets)
        data = build_leaderboard(events, LeaderboardOptions(adjusted=adjusted))
        rows: list[dict[str, Any]] = data["separation"]
        return rows

    before, after = separation(ALL_IN_EQUITY), separation(BOARD_LUCK)
    pairs = []
    for old, new in zip(before, after, strict=True):
        assert (old["better"], old["worse"]) == (new["better"], new["worse"])
        pairs.append(
            {
                "pair": f"{old['better']} > {old['worse']}",
                "raw": old["deals_for_margin"],
                "all_in": old["adjusted"]["deals_for_margin"],
                "luck": new["adjusted"]["deals_for_margin"],
            }
        )
    return {"runs": len(runs), "pairs": pairs}


def run() -> dict[str, object]:
    figures: dict[str, object] = {"seed": SEED}
    show = print
    for label, (specs, deals) in MATCHES.items():
        found = _variances(specs, deals)
        figures[label] = found
        show(
            f"{label}, {deals} deals: variance per deal, luck-adjusted / raw"
            f" {found['luck_to_raw']:.2f}, luck-adjusted / all-in {found['luck_to_all_in']:.2f}"
            f" (all-in / raw {found['all_in_to_raw']:.2f}); means moved by at most"
            f" {found['largest_z_of_mean_shift']:.2f} standard errors"
        )
    separation = _separation()
    figures["builtins leaderboard"] = separation
    show(f"built-in bots' leaderboard ({separation['runs']} events), deals to separate at 50 mbb:")
    for pair in separation["pairs"]:
        show(
            f"  {pair['pair']}: raw {pair['raw']:,}, all-in {pair['all_in']:,},"
            f" luck-adjusted {pair['luck']:,} ({pair['luck'] / pair['all_in']:.2f} x all-in)"
        )
    return figures
