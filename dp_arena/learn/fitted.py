"""Training the linear policy by fitted Monte-Carlo control on the vector environment.

The policy's logits are action values: for each raise size and for check/call, a linear
function of the decision's features estimates what the action wins *from now on*
(chips won minus chips still to be put in, the chips already committed being sunk),
in units of the pot after a call; folding is worth exactly 0 from now on. The policy
plays the best of them.

Each iteration plays ``decisions`` learner decisions at the tables of
:class:`~dp_arena.envs.gym.single_agent_vector.SingleAgentVectorEnv`, spread over the
line-ups of opponents (heads-up against each built-in bot, and six-handed against all of
them), choosing the best action but a random legal one with probability
``exploration``; every decision of a deal is credited with the deal's outcome, read
from the environment's rewards; then each action's value is refitted by ridge
regression on the last ``keep`` iterations' decisions. Everything is seeded: the same
config trains the same weights.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from dp_arena.envs.discrete_actions import DEFAULT_RAISE_SIZES, RaiseSize
from dp_arena.envs.gym.single_agent_vector import SingleAgentVectorEnv
from dp_arena.errors import ConfigError
from dp_arena.learn.checks import check_fitting, check_ranges
from dp_arena.learn.features import features
from dp_arena.learn.policy import LinearPolicy

__all__ = ["FittedConfig", "IterationReport", "train_fitted"]

BUILTIN_LINEUPS: tuple[tuple[str, ...], ...] = (
    ("tag",),
    ("equity",),
    ("aggressive",),
    ("calling-station",),
    ("random",),
    ("tag", "equity", "aggressive", "calling-station", "random"),
)


_RANGES = (
    ("iterations", 1, 10_000),
    ("decisions", 100, 100_000_000),
    ("tables", 1, 4096),
    ("rounds", 1, 1000),
    ("keep", 1, 1000),
)


@dataclass(frozen=True, slots=True)
class FittedConfig:
    iterations: int = 12
    decisions: int = 48_000  # learner decisions per iteration, over all line-ups
    tables: int = 16  # vector-env tables per line-up
    rounds: int = 5  # rounds of the button per session
    lineups: tuple[tuple[str, ...], ...] = BUILTIN_LINEUPS
    exploration: float = 0.15
    ridge: float = 10.0
    keep: int = 3  # iterations of decisions each fit uses
    seed: int = 0
    betting: str = "no-limit"
    raise_sizes: tuple[RaiseSize, ...] = field(default=DEFAULT_RAISE_SIZES)
    # "net", or "duplicate": each deal's outcome less the reference's on the same cards in
    # the same seat (the same for every action of a decision, so the fitted values keep
    # their order, with less of the cards' luck in them).
    reward: str = "net"
    reference: str = "tag"

    def __post_init__(self) -> None:
        check_ranges(self, "train", _RANGES)
        if not self.lineups or any(not lineup for lineup in self.lineups):
            raise ConfigError("train: give at least one line-up of opponents", field="lineups")
        check_fitting(self, "train")


@dataclass(frozen=True, slots=True)
class IterationReport:
    iteration: int
    decisions: int
    seconds: float
    mean_reward_bb: dict[str, float]  # the mean reward per deal with a decision, per line-up
    deals: int  # deals with a learner decision played in this iteration


def train_fitted(
    config: FittedConfig,
    *,
    on_iteration: Callable[[IterationReport, LinearPolicy], None] | None = None,
) -> LinearPolicy:
    """Train a policy from scratch for ``config.iterations`` iterations; returns it."""
    policy = LinearPolicy.zeros(config.raise_sizes)
    rng = np.random.default_rng(config.seed)
    envs = []
    for index, lineup in enumerate(config.lineups):
        env = SingleAgentVectorEnv(
            num_envs=config.tables,
            opponents=list(lineup),
            deals=config.rounds * (len(lineup) + 1),
            betting=config.betting,
            raise_sizes=config.raise_sizes,
            observation_format="flat",
            reward=config.reward,
            reference=config.reference,
        )
        env.reset(seed=config.seed * 1_000_003 + index * 100_003)
        envs.append(env)
    names = [" ".join(lineup) for lineup in config.lineups]
    batches: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    per_lineup = max(1, config.decisions // len(envs))
    for iteration in range(config.iterations):
        started = time.perf_counter()
        phis: list[np.ndarray] = []
        actions: list[int] = []
        targets: list[float] = []
        rewards: dict[str, float] = {}
        deals_played = 0
        for env, name in zip(envs, names, strict=True):
            total, deals = _collect(
                env, policy, rng, config.exploration, per_lineup, phis, actions, targets
            )
            rewards[name] = total / max(deals, 1)
            deals_played += deals
        batches.append((np.array(phis), np.array(actions), np.array(targets)))
        batches = batches[-config.keep :]
        policy.fit(batches, config.ridge)
        if on_iteration is not None:
            report = IterationReport(
                iteration, len(actions), time.perf_counter() - started, rewards, deals_played
            )
            on_iteration(report, policy)
    policy.metadata = {
        "trained_with": "dp_arena.learn.fitted (fitted Monte-Carlo control, vector env)",
        "iterations": config.iterations,
        "decisions_per_iteration": config.decisions,
        "lineups": [list(lineup) for lineup in config.lineups],
        "exploration": config.exploration,
        "reward": config.reward,
        "seed": config.seed,
        "betting": config.betting,
    }
    return policy


def _collect(
    env: SingleAgentVectorEnv,
    policy: LinearPolicy,
    rng: np.random.Generator,
    exploration: float,
    wanted: int,
    phis: list[np.ndarray],
    actions: list[int],
    targets: list[float],
) -> tuple[float, int]:
    """Play ``wanted`` learner decisions; append each one's features, action and value
    from now on (in pots after a call). Returns the rewards' total (bb) and deals."""
    big_blind = env.rules.big_blind
    table_count = env.num_envs
    # Per table: the decisions of the deal in play, as (row, committed, pot after call).
    open_decisions: list[list[tuple[int, int, int]]] = [[] for _ in range(table_count)]
    deal_keys: list[tuple[int, int] | None] = [None] * table_count
    weights = policy.weights
    size = policy.actions.size
    collected = 0
    total_reward = 0.0
    deals = 0
    views = env.views()
    while collected < wanted:
        chosen = np.zeros(table_count, dtype=np.int64)
        for index, view in enumerate(views):
            if view is None:
                continue
            phi = features(view)
            legal = view.legal()
            mask = np.array(policy.actions.mask(legal), dtype=bool)
            if rng.random() < exploration:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                values = np.where(mask, weights @ phi, -np.inf)
                action = int(np.argmax(values))
            chosen[index] = action
            seat = view.seat
            open_decisions[index].append((len(phis), view.committed[seat], view.pot + view.to_call))
            phis.append(phi)
            actions.append(action)
            targets.append(0.0)
            deal_keys[index] = (view.context.session, view.context.deal_number)
            collected += 1
        _, rewards, terminated, _, _ = env.step(chosen)
        views = env.views()
        for index in range(table_count):
            reward = float(rewards[index])
            total_reward += reward
            view = views[index]
            key = None if view is None else (view.context.session, view.context.deal_number)
            if open_decisions[index] and (terminated[index] or key != deal_keys[index]):
                chips = reward * big_blind
                for row, committed, scale in open_decisions[index]:
                    targets[row] = (chips + committed) / scale
                open_decisions[index].clear()
                deals += 1
    # Decisions of deals still in play are dropped: their outcome is not known yet.
    for decisions in open_decisions:
        for row, _, _ in decisions:
            targets[row] = math.nan
    assert size == weights.shape[0]
    return total_reward, deals
