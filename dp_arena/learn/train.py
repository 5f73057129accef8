"""Training the linear policy with REINFORCE on the duplicate environment.

The learner holds seat 0 at every one of ``tables`` mirrored heads-up tables of
:mod:`dp_arena.envs.duplicate_holdem_v0`, and the same opponent holds seat 1 at each
(an episode's opponent cycles through ``opponents``). Every table plays the same cards,
so the environment's reward, the learner's net minus the mean net of its seat position,
is an advantage with a built-in baseline: the same cards played by the same policy,
differing only in the choices it sampled. Each decision of a deal is credited with that
deal's reward; the gradient ``(onehot(a) - π) ⊗ features x advantage``, plus a small
entropy bonus that keeps the policy exploring, is averaged over an episode and applied
with Adam. Everything is seeded: the same config trains the same weights.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dp_arena.agents import Agent, load_agent, parse_answer
from dp_arena.agents.table import played
from dp_arena.engine.mixes import MixDraws
from dp_arena.envs import duplicate_holdem_v0
from dp_arena.envs.discrete_actions import DEFAULT_RAISE_SIZES, RaiseSize
from dp_arena.errors import ConfigError
from dp_arena.learn.checks import check_ranges
from dp_arena.learn.features import features
from dp_arena.learn.policy import LinearPolicy

__all__ = ["EpisodeReport", "TrainConfig", "train"]

LEARNER_SEAT = 0
# (field, smallest, largest): an episode's tables and deals are held in memory at once.
_RANGES = (("episodes", 1, 10_000_000), ("tables", 2, 1_000), ("deals", 1, 10_000))


@dataclass(frozen=True, slots=True)
class TrainConfig:
    episodes: int = 600
    tables: int = 4
    deals: int = 20  # per episode and table; even (whole heads-up rounds)
    opponents: tuple[str, ...] = ("random", "calling-station")
    learning_rate: float = 0.03
    entropy: float = 0.01
    seed: int = 0
    betting: str = "no-limit"
    raise_sizes: tuple[RaiseSize, ...] = DEFAULT_RAISE_SIZES

    def __post_init__(self) -> None:
        check_ranges(self, "train", _RANGES)
        if self.deals % 2:
            raise ConfigError(
                f"train: deals must be even (whole heads-up rounds), not {self.deals}",
                field="deals",
            )
        if not self.opponents:
            raise ConfigError("train: give at least one opponent", field="opponents")
        if not (0 < self.learning_rate < math.inf and 0 <= self.entropy < math.inf):
            raise ConfigError(
                "train: learning_rate must be positive and entropy non-negative",
                field="learning_rate",
            )


@dataclass(frozen=True, slots=True)
class EpisodeReport:
    episode: int
    opponent: str
    decisions: int
    mean_net_bb: float  # the learner's mean net per hand in the episode, in big blinds


class _Adam:
    def __init__(self, shape: tuple[int, ...], learning_rate: float) -> None:
        self.learning_rate = learning_rate
        self.first = np.zeros(shape)
        self.second = np.zeros(shape)
        self.steps = 0

    def ascend(self, weights: np.ndarray, gradient: np.ndarray) -> None:
        self.steps += 1
        self.first = 0.9 * self.first + 0.1 * gradient
        self.second = 0.999 * self.second + 0.001 * gradient * gradient
        corrected_first = self.first / (1 - 0.9**self.steps)
        corrected_second = self.second / (1 - 0.999**self.steps)
        weights += self.learning_rate * corrected_first / (np.sqrt(corrected_second) + 1e-8)


def train(
    config: TrainConfig,
    policy: LinearPolicy | None = None,
    *,
    opponent_factory: Callable[[str], Agent] = load_agent,
    on_episode: Callable[[EpisodeReport], None] | None = None,
) -> LinearPolicy:
    """Train ``policy`` (default: untrained) for ``config.episodes`` episodes; returns it."""
    policy = policy or LinearPolicy.zeros(config.raise_sizes)
    if tuple(policy.raise_sizes) != tuple(config.raise_sizes):
        raise ConfigError(
            "train: the policy's raise sizes differ from the config's", field="raise_sizes"
        )
    env = duplicate_holdem_v0.raw_env(
        num_players=2,
        tables=config.tables,
        deals=config.deals,
        betting=config.betting,
        raise_sizes=config.raise_sizes,
    )
    action_table = env.action_table
    rng = np.random.default_rng(config.seed)
    adam = _Adam(policy.weights.shape, config.learning_rate)
    opponents = {
        spec: [opponent_factory(spec) for _ in range(config.tables)] for spec in config.opponents
    }
    learner_agents = [row[LEARNER_SEAT] for row in env.agent_grid]
    for episode in range(config.episodes):
        spec = config.opponents[episode % len(config.opponents)]
        env.reset(seed=config.seed) if episode == 0 else env.reset()
        gradient, decisions, net_total = _play_episode(
            env, policy, opponents[spec], learner_agents, action_table, rng, config.entropy
        )
        if decisions:
            adam.ascend(policy.weights, gradient / decisions)
        if on_episode is not None:
            hands = config.tables * config.deals
            on_episode(
                EpisodeReport(episode, spec, decisions, net_total / hands / env.rules.big_blind)
            )
    policy.metadata = {
        "trained_with": "dp_arena.learn.train (REINFORCE on duplicate_holdem_v0)",
        "episodes": config.episodes,
        "tables": config.tables,
        "deals": config.deals,
        "opponents": list(config.opponents),
        "seed": config.seed,
        "betting": config.betting,
    }
    return policy


def _play_episode(
    env: duplicate_holdem_v0.raw_env,
    policy: LinearPolicy,
    opponents: Sequence[Agent],
    learner_agents: Sequence[str],
    action_table: object,
    rng: np.random.Generator,
    entropy: float,
) -> tuple[np.ndarray, int, int]:
    gradient = np.zeros_like(policy.weights)
    pending: list[list[tuple[np.ndarray, int, np.ndarray]]] = [[] for _ in learner_agents]
    decisions = 0
    action_count = policy.weights.shape[0]
    terminations = env.terminations
    while not terminations[env.agent_selection]:
        agent = env.agent_selection
        table, seat = env.seat_of[agent]
        observation = env.infos[agent]["observation"]
        deal_before = env.deal
        legal = observation.legal()
        if seat == LEARNER_SEAT:
            phi = features(observation)
            mask = np.array(policy.actions.mask(legal), dtype=np.int8)
            probabilities = policy.probabilities(phi, mask)
            action = int(rng.choice(action_count, p=probabilities))
            pending[table].append((phi, action, probabilities))
            env.step(action)
        else:
            # A mixed answer (the random bot's) is drawn as a dealer draws it.
            answer = parse_answer(opponents[table].act(observation))
            assert env.event_seed is not None
            draws = MixDraws(env.event_seed, 0, env.session, table)
            env.step(played(answer, legal, draws, env.deal, len(observation.history)))
        if env.deal != deal_before:  # the deal is over at every table: credit its decisions
            for learner_table, learner in enumerate(learner_agents):
                advantage = env.rewards[learner]
                for phi, action, probabilities in pending[learner_table]:
                    direction = -probabilities
                    direction[action] += 1.0
                    direction *= advantage
                    if entropy:
                        legal_mask = probabilities > 0
                        logs = np.log(
                            probabilities, where=legal_mask, out=np.zeros_like(probabilities)
                        )
                        value = -(probabilities * logs).sum()
                        direction -= entropy * probabilities * (logs + value)
                    gradient += np.outer(direction, phi)
                    decisions += 1
                pending[learner_table].clear()
    net_total = sum(env.session_nets[table][LEARNER_SEAT] for table in range(len(learner_agents)))
    return gradient, decisions, net_total
