"""The duplicate reward against the raw one: how much variance it removes, and how many
deals training needs to reach a given strength with each.

1. Variance: a fixed policy (the shipped learned bot's) plays sessions of the vector
   env heads-up against each built-in bot, once with ``reward="net"`` and once with
   ``reward="duplicate"`` (same seeds, same decisions); the variance of a session's
   total reward is compared, for each reference policy.
2. Deals to strength: the fitted-control trainer runs once on each reward, with the same
   seeds and budget, heads-up against ``tag`` and ``equity``; after each iteration the
   policy plays a heads-up duplicate match against each of them, and the deals played so
   far are printed beside its scores.

Run: ``python examples/duplicate_reward_study.py [--quick]`` (about 15 minutes on one
core; ``--quick`` a few). The figures quoted in docs/envs.md come from this script.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from dp_arena.agents.spec import AGENTS_DIR
from dp_arena.envs.gym.single_agent_vector import SingleAgentVectorEnv
from dp_arena.learn import LinearPolicy, PolicyBot, duplicate_score
from dp_arena.learn.features import features
from dp_arena.learn.fitted import FittedConfig, train_fitted

OPPONENTS = ("tag", "equity", "aggressive", "calling-station", "random")


def session_totals(
    policy: LinearPolicy, opponent: str, reward: str, reference: str, sessions: int
) -> np.ndarray:
    """Each session's total reward (bb) for ``policy`` playing greedily."""
    tables = 16
    env = SingleAgentVectorEnv(
        num_envs=tables,
        opponents=[opponent],
        deals=10,
        reward=reward,
        reference=reference,
        observation_format="flat",
    )
    env.reset(seed=90_000)
    totals: list[float] = []
    running = np.zeros(tables)
    while len(totals) < sessions:
        actions = np.zeros(tables, dtype=np.int64)
        for index, view in enumerate(env.views()):
            if view is not None:
                mask = np.array(policy.actions.mask(view.legal()), dtype=np.int8)
                actions[index] = policy.best(features(view), mask)
        _, rewards, terminated, _, _ = env.step(actions)
        running += rewards
        for index in np.flatnonzero(terminated):
            totals.append(float(running[index]))
            running[index] = 0.0
    return np.array(totals[:sessions])


def variance_study(sessions: int, weights: str) -> dict[str, object]:
    policy = LinearPolicy.load(weights)
    figures: dict[str, object] = {}
    for opponent in OPPONENTS:
        raw = session_totals(policy, opponent, "net", "calling-station", sessions)
        row: dict[str, object] = {"raw_variance": round(float(raw.var()), 1)}
        for reference in ("calling-station", "tag", "equity"):
            duplicate = session_totals(policy, opponent, "duplicate", reference, sessions)
            row[f"{reference}_variance"] = round(float(duplicate.var()), 1)
            row[f"{reference}_ratio"] = round(float(duplicate.var() / raw.var()), 3)
        figures[opponent] = row
        print(f"variance of a 10-deal session's reward vs {opponent}: {row}", flush=True)
    return figures


def strength_study(iterations: int, decisions: int, deals: int) -> dict[str, object]:
    figures: dict[str, object] = {}
    for reward in ("net", "duplicate"):
        config = FittedConfig(
            iterations=iterations,
            decisions=decisions,
            tables=16,
            lineups=(("tag",), ("equity",)),
            reward=reward,
            reference="tag",
            seed=3,
        )
        curve: list[dict[str, float]] = []
        played = 0

        def evaluate(report, policy, curve=curve, reward=reward) -> None:  # type: ignore[no-untyped-def]
            nonlocal played
            played += report.deals
            frozen = LinearPolicy(policy.weights.copy(), policy.raise_sizes)
            point: dict[str, float] = {"deals": played}
            for opponent in ("tag", "equity"):
                score = duplicate_score(
                    lambda frozen=frozen: PolicyBot(frozen), opponent, deals=deals, seed=4242
                )
                point[opponent] = round(score.mean)
                point[f"{opponent}_low"] = round(score.low)
            curve.append(point)
            print(f"{reward}: {point}", flush=True)

        started = time.perf_counter()
        train_fitted(config, on_iteration=evaluate)
        figures[reward] = {"curve": curve, "seconds": round(time.perf_counter() - started)}
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few minutes: smaller samples")
    parser.add_argument(
        "--part", choices=["variance", "strength", "both"], default="both", help="what to run"
    )
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument(
        "--weights",
        default=str(AGENTS_DIR / "learned_fitted_weights.json"),
        help="the fixed policy of the variance study (default: the fitted weights the"
        " shipped learned bot's self-play starts from)",
    )
    args = parser.parse_args(argv)
    sessions, iterations, decisions, deals = (
        (64, 3, 4000, 200) if args.quick else (400, 5, 8000, 400)
    )
    figures: dict[str, object] = {}
    if args.part in ("variance", "both"):
        figures["variance"] = variance_study(sessions, args.weights)
    if args.part in ("strength", "both"):
        figures["strength"] = strength_study(iterations, decisions, deals)
    if args.json:
        with open(args.json, "w") as file:
            json.dump(figures, file, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
