"""Environment steps per second for random masked play, next to PettingZoo's own
``texas_holdem_no_limit_v6`` measured in the same run (it needs ``rlcard``), and the
native vector environment's learner transitions per second against the reference's
decisions per second (the reference measured before and after it, and averaged, so a
change of load on a shared machine shows rather than biasing the ratio), and the same
ratio in CPU time of this process (``time.process_time``), which other work on the
machine cannot bias.

Every environment runs the same loop: ``agent_iter()``, ``last()``, a uniformly random
legal action drawn from the observation's mask (or ``None`` for an agent whose episode
is over), ``step()``; an episode ends, ``reset()`` starts the next. A step is one call
of ``step()``; "decisions" counts only the steps that took an action. Figures: ours at 2
and 6 players (one capped table, sessions of 10 rounds), the duplicate env (2 tables of
2), and the reference at 2 and 6 players (one hand per episode, its only mode).
"""

from __future__ import annotations

import random
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

SECONDS = 3.0


def _measure(make_env: Callable[[], Any], seconds: float = SECONDS) -> dict[str, float]:
    env = make_env()
    rng = random.Random(0)
    env.reset(seed=0)
    steps = decisions = episodes = 0
    started = time.perf_counter()
    cpu = time.process_time()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.randrange(len(legal))])
                decisions += 1
            env.step(action)
            steps += 1
        episodes += 1
        env.reset()
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu
    return {
        "steps_per_second": round(steps / elapsed),
        "decisions_per_second": round(decisions / elapsed),
        "steps_per_episode": round(steps / episodes, 1),
        "cpu_us_per_decision": round(cpu / decisions * 1e6, 2),
    }


def _reference(num_players: int) -> Callable[[], Any] | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pettingzoo.classic import texas_holdem_no_limit_v6
    except ImportError:
        return None

    def make() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return texas_holdem_no_limit_v6.env(num_players=num_players)

    return make


VECTOR_TABLES = 256
# (players, opponent, tables): the goals are 10x the reference heads-up and six-max
# against a frozen policy (a learner's snapshot: "policy") and against tag, and six-max
# against random, at 1,024 tables, where the batch's fixed cost a step is shared by four
# times the tables of the 256-table lines. "learned" is the shipped learned bot, played
# table by table (its features are read from its typed observation). docs/envs.md
# (Performance) keeps a run's figures, before and after the six-max batch step was made
# faster, and where a six-max transition's time goes.
VECTOR_RUNS = (
    (2, "random", VECTOR_TABLES),
    (2, "calling-station", VECTOR_TABLES),
    (2, "tag", VECTOR_TABLES),
    (2, "policy", VECTOR_TABLES),
    (2, "learned", VECTOR_TABLES),
    (6, "random", VECTOR_TABLES),
    (6, "calling-station", VECTOR_TABLES),
    (6, "tag", VECTOR_TABLES),
    (6, "policy", VECTOR_TABLES),
    (2, "tag", 1024),
    (2, "policy", 1024),
    (6, "random", 1024),
    (6, "tag", 1024),
    (6, "policy", 1024),
)
GOALS = (
    (2, "tag", 1024),
    (2, "policy", 1024),
    (6, "random", 1024),
    (6, "tag", 1024),
    (6, "policy", 1024),
)


class FrozenPolicy:
    """A learner's frozen snapshot as a CleanRL-style agent hands it over: a multi-layer
    perceptron (two hidden layers of 64, ReLU) over the observation vectors whose action
    head starts with small weights (CleanRL's ``layer_init(std=0.01)``), sampling its
    action from the masked softmax of the logits (Gumbel-max, its own generator). Freshly
    initialised, it plays close to a uniformly random legal action, as the reference's
    players do; what it plays matters less here than what it costs."""

    def __init__(self, length: int, actions: int = 6, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        shapes = ((length, 64), (64, 64), (64, actions))
        scales = (np.sqrt(2 / length), np.sqrt(2 / 64), 0.01)
        self.layers = [
            (rng.normal(size=shape) * scale).astype(np.float32)
            for shape, scale in zip(shapes, scales, strict=True)
        ]
        self.rng = np.random.default_rng(seed + 1)

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        hidden = observations
        for layer in self.layers[:-1]:
            hidden = np.maximum(hidden @ layer, 0.0)
        logits = hidden @ self.layers[-1] - np.log(-np.log(self.rng.random(masks.shape)))
        return np.where(masks == 1, logits, -np.inf).argmax(axis=1)


def _opponents(opponent: str, players: int) -> list[Any]:
    """The line-up: a built-in spec (the shipped ``learned`` bot weighs features of its
    typed observation, so it plays table by table), or the frozen policy (one object at
    every seat, so the batch asks it once for all of them)."""
    if opponent == "policy":
        return [FrozenPolicy(117 + 14 * players)] * (players - 1)
    return [opponent] * (players - 1)


def _measure_vector(
    opponents: list[Any], num_envs: int = VECTOR_TABLES, seconds: float = SECONDS
) -> dict[str, float]:
    """Learner transitions per second of the vector env: every table's learner plays a
    uniformly random legal action, drawn for all tables at once with NumPy."""
    import gymnasium

    import dp_arena.envs  # noqa: F401  (registers the id)

    envs = gymnasium.make_vec(
        "dp_arena/CappedHoldem-v0",
        num_envs=num_envs,
        vectorization_mode="vector_entry_point",
        opponents=opponents,
        deals=10 * (len(opponents) + 1),
        observation_format="flat",
    )
    rng = np.random.default_rng(0)
    _, infos = envs.reset(seed=0)
    transitions = steps = 0
    started = time.perf_counter()
    cpu = time.process_time()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        masks = infos["action_mask"].astype(bool)
        noise = rng.random(masks.shape)
        noise[~masks] = -1.0
        _, _, _, _, infos = envs.step(noise.argmax(axis=1))
        transitions += int(masks.any(axis=1).sum())
        steps += 1
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu
    envs.close()
    return {
        "transitions_per_second": round(transitions / elapsed),
        "cpu_us_per_transition": round(cpu / transitions * 1e6, 2),
        "vector_steps_per_second": round(steps / elapsed, 1),
        "tables": num_envs,
    }


def run() -> dict[str, Any]:
    from dp_arena.envs import capped_holdem_v0, duplicate_holdem_v0

    figures: dict[str, Any] = {
        "unit": "env steps per second, random masked play",
        "seconds_each": SECONDS,
    }
    for players in (2, 6):
        ours = _measure(
            lambda players=players: capped_holdem_v0.env(num_players=players, deals=10 * players)
        )
        figures[f"capped_holdem_v0_{players}p"] = ours
        reference_factory = _reference(players)
        if reference_factory is None:
            figures[f"reference_{players}p"] = (
                "texas_holdem_no_limit_v6 unavailable: pip install rlcard pygame"
            )
            print(
                f"{players} players: ours {ours['steps_per_second']:>7,} steps/s;"
                " reference unavailable (rlcard)"
            )
            continue
        reference = _measure(reference_factory)
        figures[f"reference_{players}p"] = reference
        ratio = ours["steps_per_second"] / reference["steps_per_second"]
        decision_ratio = ours["decisions_per_second"] / reference["decisions_per_second"]
        figures[f"ratio_{players}p"] = round(ratio, 2)
        figures[f"decision_ratio_{players}p"] = round(decision_ratio, 2)
        print(
            f"{players} players: capped_holdem_v0 {ours['steps_per_second']:>7,} steps/s"
            f" ({ours['decisions_per_second']:,} decisions/s); texas_holdem_no_limit_v6"
            f" {reference['steps_per_second']:>7,} steps/s"
            f" ({reference['decisions_per_second']:,} decisions/s);"
            f" ratio {ratio:.1f}x steps, {decision_ratio:.1f}x decisions (target 10x)"
        )
    # The reference is measured before the first run and after every run: each run's
    # ratio is against the mean of the measures just before and just after it.
    references = {players: _reference(players) for players in (2, 6)}
    last: dict[int, dict[str, float]] = {}
    goals = []
    for players, opponent, tables in VECTOR_RUNS:
        reference_factory = references[players]
        if reference_factory is None:
            break
        if players not in last:
            last[players] = _measure(reference_factory)
        first = last[players]
        vector = _measure_vector(_opponents(opponent, players), num_envs=tables)
        second = last[players] = _measure(reference_factory)
        before, after = first["decisions_per_second"], second["decisions_per_second"]
        reference_rate = (before + after) / 2
        ratio = vector["transitions_per_second"] / reference_rate
        # The same in CPU time of this process: what other work on the machine cannot bias.
        reference_cpu = (first["cpu_us_per_decision"] + second["cpu_us_per_decision"]) / 2
        cpu_ratio = reference_cpu / vector["cpu_us_per_transition"]
        name = f"vector_{players}p_{opponent}" + ("" if tables == VECTOR_TABLES else f"_{tables}")
        figures[name] = {
            **vector,
            "reference_decisions_per_second": [before, after],
            "ratio": round(ratio, 2),
            "cpu_ratio": round(cpu_ratio, 2),
        }
        if (players, opponent, tables) in GOALS:
            goals.append((name, ratio, cpu_ratio))
        print(
            f"{players} players vs {opponent}: SingleAgentVectorEnv ({vector['tables']} tables)"
            f" {vector['transitions_per_second']:>7,} learner transitions/s;"
            f" texas_holdem_no_limit_v6 {before:,}/{after:,} decisions/s (before/after);"
            f" ratio {ratio:.1f}x, in CPU time {cpu_ratio:.1f}x"
            + (" (goal 10x)" if (players, opponent, tables) in GOALS else "")
        )
    if goals:
        met = [name for name, ratio, cpu_ratio in goals if min(ratio, cpu_ratio) >= 10]
        figures["goals_met"] = f"{len(met)} of {len(goals)}"
        print(
            "goals (10x, by wall-clock and by CPU time): "
            + ", ".join(f"{name} {ratio:.1f}x / {cpu:.1f}x" for name, ratio, cpu in goals)
            + f"; {len(met)} of {len(goals)} met"
        )
    duplicate = _measure(lambda: duplicate_holdem_v0.env(num_players=2, tables=2, deals=20))
    figures["duplicate_holdem_v0_2x2"] = duplicate
    print(f"duplicate_holdem_v0, 2 tables x 2 players: {duplicate['steps_per_second']:>7,} steps/s")
    return figures


if __name__ == "__main__":
    run()
