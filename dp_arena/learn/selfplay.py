"""Training the linear policy by self-play: fitted Monte-Carlo control against a league
of the built-in bots and the learner's own frozen snapshots, at the tables of the vector
environment.

The policy's logits are action values: for each raise size and for check/call, a linear
function estimates what the action wins *from now on* (the chips already committed are
sunk), in units of the pot after a call; folding is worth exactly 0. The policy plays
the best of them, so it is deterministic. Its features (``features``) are those of the
observation vectors (:mod:`dp_arena.learn.vector_features`: the learner and its frozen
copies decide in the batch, one call for all its tables) or those of the typed
observation (:mod:`dp_arena.learn.features`, read from the tables' views; its frozen
copies play table by table as :class:`~dp_arena.learn.bot.PolicyBot` opponents).

Each iteration draws ``lineups`` line-ups from the :class:`~dp_arena.learn.league.League`
(heads-up: one member; six-max: five, drawn apart) by prioritised fictitious self-play
(the snapshots play in the six-max line-ups, and in the heads-up ones too with
``snapshots_in="both"``). With ``stratified``, only the six-max line-ups are drawn:
every member is played heads-up every iteration, the heads-up share of the decisions
split among them half evenly and half by the same PFSP chances. It plays ``decisions``
learner decisions spread over the line-ups at the tables of
:class:`~dp_arena.envs.gym.single_agent_vector.SingleAgentVectorEnv` (the best action, but a
random legal one with probability ``exploration``), credits every decision of a deal with
the deal's outcome read from the rewards, records each finished session as a win, a draw
or a loss against the members it was played against, then refits each action's values
by ridge regression on the last ``keep`` iterations' decisions (each iteration kept as
its sums of squares and products, so a fit on all of a run's decisions costs no more
memory than one on the last). Every ``snapshot_every`` iterations a frozen copy of the
learner joins the league. Everything is seeded: the same config trains the same weights.

A run may start from other weights (``warm_start``, a policy file): weights over the
learner's features are its first weights (the first iteration plays them); weights over
the other feature set are the behaviour of its first ``warm_iterations`` iterations (with
the same exploration), the learner's values fitted to what those decisions won, so that
self-play starts from a policy distilled from that policy's decisions. With
``start_in_league`` the policy started from is also a member of the league, ``start``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dp_arena.envs.discrete_actions import DEFAULT_RAISE_SIZES, RaiseSize
from dp_arena.envs.encoding import observation_length
from dp_arena.envs.gym.single_agent_vector import SingleAgentVectorEnv
from dp_arena.errors import AgentError, ConfigError
from dp_arena.learn.bot import PolicyBot
from dp_arena.learn.checks import check_fitting, check_ranges
from dp_arena.learn.features import features as observation_features
from dp_arena.learn.league import WEIGHTINGS, League, Member
from dp_arena.learn.policy import FEATURE_SETS, LinearPolicy
from dp_arena.learn.vector_features import features

__all__ = ["IterationReport", "SelfPlayConfig", "train_self_play"]


@dataclass(frozen=True, slots=True)
class SelfPlayConfig:
    iterations: int = 30
    decisions: int = 60_000  # learner decisions per iteration, over all its line-ups
    tables: int = 256  # vector-env tables per line-up
    rounds: int = 5  # rounds of the button per session
    lineups: int = 4  # line-ups drawn from the league per iteration
    six_max: int = 2  # how many of them are six-handed (the others heads-up)
    # Where the learner's snapshots play: "six-max" (heads-up line-ups draw the built-ins
    # alone) or "both". The features of heads-up and bigger tables are apart, so each
    # game's weights learn from its own line-ups only.
    snapshots_in: str = "six-max"
    builtins: tuple[str, ...] = ("tag", "aggressive", "calling-station", "random")
    snapshot_every: int = 3  # a frozen copy of the learner joins the league this often
    capacity: int = 4  # snapshots kept (the oldest goes first)
    weighting: str = "hard"
    exploration: float = 0.1
    ridge: float = 10.0
    keep: int = 3  # iterations of decisions each fit uses
    # The first iterations' decisions kept in every fit besides the last ``keep`` (with a
    # warm start, the data of the policy started from stays in every fit).
    keep_first: int = 0
    # How far the weights move to each fit: w <- (1 - step) w + step w_fit (1: to the fit,
    # a plain policy-iteration step; smaller: a trust region, the averaging of fictitious
    # play; 0: never moves).
    step: float = 1.0
    # The learner's behaviour while it trains: 0, the best action (but a random legal one
    # with probability ``exploration``); above 0, the softmax of the values at this
    # temperature (in pots), so every action is tried in proportion to its value.
    behaviour_temperature: float = 0.0
    # The decisions each action is fitted on: "all", or "exploring" (only those drawn at
    # random: every action's values then fitted on the same states, the policy's own,
    # not on the states where the policy already prefers it).
    fit_on: str = "all"
    # Model selection: with it above 0, the run returns, of its snapshots' weights and its
    # last, those whose worst heads-up duplicate score over this many deals against the
    # members of the league that are not snapshots is the highest (on decks of its own
    # seed, never the evaluation's), each played as its softmax at select_temperature
    # (0: greedily); 0 returns the last weights.
    select_deals: int = 0
    select_temperature: float = 0.1
    # Every member heads-up every iteration (the heads-up decisions split among them half
    # evenly, half by PFSP), only the six-max line-ups drawn; else every line-up drawn.
    stratified: bool = False
    warm_start: str = ""  # a policy file to start from ("" for none; module docstring)
    warm_iterations: int = 1  # iterations played by a warm start over other features
    # The warm start's policy joins the league as the member "start" (played greedily).
    start_in_league: bool = False
    # The learner's features: "vector" (of the observation vectors: the learner and its
    # snapshots play in the batch) or "observation" (of the typed observation, read from
    # the tables' views; its snapshots play table by table as bots).
    features: str = "vector"
    seed: int = 0
    betting: str = "no-limit"
    raise_sizes: tuple[RaiseSize, ...] = field(default=DEFAULT_RAISE_SIZES)

    def __post_init__(self) -> None:
        check_ranges(
            self,
            "self-play",
            (
                ("iterations", 1, 10_000),
                ("decisions", 100, 100_000_000),
                ("tables", 1, 65_536),
                ("rounds", 1, 1000),
                ("lineups", 1, 100),
                ("snapshot_every", 1, 10_000),
                ("capacity", 1, 10_000),
                ("keep", 1, 10_000),
                ("warm_iterations", 0, 10_000),
                ("keep_first", 0, 10_000),
                ("select_deals", 0, 1_000_000),
            ),
        )
        if not 0 <= self.six_max <= self.lineups:
            raise ConfigError("self-play: six_max must be 0 to lineups", field="six_max")
        if self.snapshots_in not in ("six-max", "both"):
            raise ConfigError(
                "self-play: snapshots_in must be 'six-max' or 'both'", field="snapshots_in"
            )
        if self.weighting not in WEIGHTINGS:
            raise ConfigError(
                f"self-play: weighting must be one of {list(WEIGHTINGS)}", field="weighting"
            )
        check_fitting(self, "self-play")
        if isinstance(self.step, bool) or not isinstance(self.step, int | float):
            raise ConfigError("self-play: step must be a number in [0, 1]", field="step")
        if not 0 <= self.step <= 1:
            raise ConfigError("self-play: step must be in [0, 1]", field="step")
        if self.fit_on not in ("all", "exploring"):
            raise ConfigError("self-play: fit_on must be 'all' or 'exploring'", field="fit_on")
        if self.fit_on == "exploring" and not self.exploration > 0:
            raise ConfigError(
                "self-play: fit_on = 'exploring' needs an exploration above 0", field="fit_on"
            )
        for name in ("behaviour_temperature", "select_temperature"):
            temperature = getattr(self, name)
            if (
                isinstance(temperature, bool)
                or not isinstance(temperature, int | float)
                or not 0 <= temperature < math.inf
            ):
                raise ConfigError(f"self-play: {name} must be a number, 0 or more", field=name)
        if not isinstance(self.stratified, bool):
            raise ConfigError("self-play: stratified must be true or false", field="stratified")
        if self.features not in FEATURE_SETS:
            raise ConfigError(
                f"self-play: features must be one of {list(FEATURE_SETS)}", field="features"
            )
        if self.start_in_league and not self.warm_start:
            raise ConfigError(
                "self-play: start_in_league needs a warm_start", field="start_in_league"
            )
        if not isinstance(self.warm_start, str):
            raise ConfigError("self-play: warm_start must be a file name", field="warm_start")


@dataclass(frozen=True, slots=True)
class IterationReport:
    iteration: int
    decisions: int
    deals: int  # deals with a learner decision
    seconds: float
    mean_reward_bb: dict[str, float]  # per line-up, the mean reward per deal with a decision
    league: list[tuple[str, float, float, float]]  # name, sessions, win rate, draw chance


def train_self_play(
    config: SelfPlayConfig,
    *,
    on_iteration: Callable[[IterationReport, LinearPolicy], None] | None = None,
) -> tuple[LinearPolicy, League]:
    """Train a policy for ``config.iterations`` iterations (from zeros, or from
    ``config.warm_start``); returns it and its league (every member's record)."""
    policy = LinearPolicy.zeros(config.raise_sizes, feature_set=config.features)
    start = _warm_start(config)
    teacher = None
    if start is not None and start.feature_set == policy.feature_set:
        policy.weights[:] = start.weights
    elif start is not None:
        teacher = start
    rng = np.random.default_rng(config.seed)
    league = League(weighting=config.weighting, seed=config.seed, capacity=config.capacity)
    for spec in config.builtins:
        league.add(spec)
    if start is not None and config.start_in_league:
        league.add(start.copy() if start.feature_set == "vector" else PolicyBot(start), "start")
    statistics: list[_Sums] = []
    first: list[_Sums] = []  # the first ``keep_first`` iterations', kept in every fit
    candidates: dict[str, LinearPolicy] = {}  # the snapshots' weights, for select_deals
    for iteration in range(config.iterations):
        started = time.perf_counter()
        sums = _Sums.empty(policy.weights.shape)
        rewards: dict[str, float] = {}
        deals = decided = 0
        behaviour = teacher if iteration < config.warm_iterations else None
        for index, (six_max, members, wanted) in enumerate(_lineups(config, league)):
            name = " ".join(member.name for member in members)
            env = SingleAgentVectorEnv(
                num_envs=config.tables,
                opponents=[member.opponent for member in members],
                learner_seat=int(rng.integers(6 if six_max else 2)),
                deals=config.rounds * (6 if six_max else 2),
                betting=config.betting,
                raise_sizes=config.raise_sizes,
                observation_format="flat",
                autoreset_mode="SameStep",  # an ended session's row is the next one's at once
            )
            seed = (config.seed * 1_000_003 + iteration * 1_009 + index) * 65_536
            collected = _collect(env, seed, policy, rng, config, wanted, members, league, behaviour)
            sums.add(*collected[:3])
            rewards[name] = collected[3] / max(collected[4], 1)
            deals += collected[4]
            decided += len(collected[1])
            env.close()
        if iteration < config.keep_first:
            first.append(sums)
        else:
            statistics = [*statistics, sums][-config.keep :]
        _fit(policy, [*first, *statistics], config.ridge, config.step)
        if (iteration + 1) % config.snapshot_every == 0:
            snapshot = policy if policy.feature_set == "vector" else PolicyBot(policy.copy())
            league.add_snapshot(snapshot, f"learned-{iteration + 1}")
            candidates[f"learned-{iteration + 1}"] = policy.copy()
        if on_iteration is not None:
            report = IterationReport(
                iteration,
                decided,
                deals,
                time.perf_counter() - started,
                rewards,
                league.table(),
            )
            on_iteration(report, policy)
    selection: dict[str, dict[str, float]] = {}
    if config.select_deals:
        candidates[f"learned-{config.iterations}"] = policy
        selection = select_scores(candidates, league, config)
        best = max(selection, key=lambda name: min(selection[name].values()))
        policy = candidates[best].copy()
    policy.metadata = {
        "trained_with": "dp_arena.learn.selfplay (fitted Monte-Carlo control, self-play league)",
        "iterations": config.iterations,
        "decisions_per_iteration": config.decisions,
        "builtins": list(config.builtins),
        "weighting": config.weighting,
        "stratified": config.stratified,
        "keep": config.keep,
        "keep_first": config.keep_first,
        "step": config.step,
        "behaviour_temperature": config.behaviour_temperature,
        "fit_on": config.fit_on,
        # Each candidate's scores (mbb/deal) against the members, and the one returned.
        "selection": selection or None,
        "selected": best if selection else None,
        "warm_start": Path(config.warm_start).name if config.warm_start else None,
        "start_in_league": config.start_in_league,
        # How the run started from them: their weights, or their decisions (behaviour).
        "warm_start_as": None if start is None else "behaviour" if teacher else "weights",
        "exploration": config.exploration,
        "features": config.features,
        "seed": config.seed,
        "betting": config.betting,
    }
    return policy, league


def select_scores(
    candidates: dict[str, LinearPolicy], league: League, config: SelfPlayConfig
) -> dict[str, dict[str, float]]:
    """Each candidate's heads-up duplicate score (mbb/deal, over ``config.select_deals``
    deals) against every member of ``league`` that is not a snapshot, on decks of the
    training seed's own, played as its softmax at ``config.select_temperature``."""
    from dp_arena.learn.evaluate import duplicate_score  # the match machinery, on demand

    temperature = config.select_temperature or None
    seed = config.seed * 1_000_003 + 977_269  # not an iteration's, nor the evaluation's
    scores: dict[str, dict[str, float]] = {}
    for name, candidate in candidates.items():
        scores[name] = {}
        player = _opponent_factory(candidate, temperature)
        for member in league.members.values():
            if member.snapshot:
                continue
            score = duplicate_score(
                player,
                _opponent_factory(member.opponent),
                deals=config.select_deals,
                seed=seed,
                betting=config.betting,
                name=member.name,
            )
            scores[name][member.name] = score.mean
    return scores


def _opponent_factory(opponent: object, temperature: float | None = None) -> Any:
    """A member's opponent as a match takes it: an agent spec, or a factory of fresh
    bots (a policy played greedily, as it plays in the league, or at ``temperature``)."""
    if isinstance(opponent, str):
        return opponent
    if isinstance(opponent, PolicyBot):
        policy, temperature = opponent.policy, opponent.temperature
        return lambda: PolicyBot(policy, temperature)
    if isinstance(opponent, LinearPolicy):
        return lambda: PolicyBot(opponent, temperature)
    raise ConfigError(
        f"self-play: select_deals cannot play the member {opponent!r} in a match",
        field="select_deals",
    )


def _warm_start(config: SelfPlayConfig) -> LinearPolicy | None:
    """The policy of ``config.warm_start`` (None without one)."""
    if not config.warm_start:
        return None
    try:
        start = LinearPolicy.load(config.warm_start)
    except AgentError as error:
        raise ConfigError(f"self-play: warm_start: {error}", field="warm_start") from None
    if start.raise_sizes != tuple(config.raise_sizes):
        raise ConfigError(
            f"self-play: warm_start {config.warm_start}: its raise sizes"
            f" {list(start.raise_sizes)} are not the run's {list(config.raise_sizes)}",
            field="warm_start",
        )
    return start


def _lineups(config: SelfPlayConfig, league: League) -> Iterator[tuple[bool, list[Member], int]]:
    """This iteration's line-ups, each drawn when its turn comes (after the sessions of
    those before it are recorded): whether six-handed, the members, the decisions."""
    per_lineup = max(1, config.decisions // config.lineups)
    snapshots_heads_up = config.snapshots_in == "both"
    for _ in range(config.six_max):
        yield True, league.sample(5), per_lineup
    heads_up_slots = config.lineups - config.six_max
    if not config.stratified:
        for _ in range(heads_up_slots):
            yield False, league.sample(1, snapshots=snapshots_heads_up), per_lineup
        return
    chances = league.probabilities(snapshots=snapshots_heads_up)
    budget = per_lineup * heads_up_slots
    for name, chance in chances.items():
        share = (1 / len(chances) + chance) / 2
        yield False, [league.members[name]], max(1, round(budget * share))


def _collect(
    env: SingleAgentVectorEnv,
    seed: int,
    policy: LinearPolicy,
    rng: np.random.Generator,
    config: SelfPlayConfig,
    wanted: int,
    members: list[Member],
    league: League,
    behaviour: LinearPolicy | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, int]:
    """Play ``wanted`` learner decisions: their features, actions and values from now on
    (in pots after a call; NaN for the deals still in play at the end), the rewards'
    total (bb) and the deals with a decision; finished sessions go to the league. The
    best actions are ``policy``'s, or ``behaviour``'s (a policy over other features)."""
    tables = env.num_envs
    seats = env.rules.seat_count
    scalars = 108 + seats
    cap, big_blind, deals = env.rules.cap, env.rules.big_blind, env.deals
    assert cap is not None
    observations, infos = env.reset(seed=seed)
    assert observations.shape[1] == observation_length(seats)
    names = list(dict.fromkeys(member.name for member in members))
    feature_rows: list[np.ndarray] = []
    chosen_actions: list[np.ndarray] = []
    committed: list[np.ndarray] = []  # chips, per decision
    scales: list[np.ndarray] = []  # the pot after a call, chips
    keys: list[np.ndarray] = []  # (table, deal serial) of each decision
    outcomes: dict[tuple[int, int], float] = {}  # (table, serial) -> the deal's chips
    serial = np.zeros(tables, dtype=np.int64)
    session_rewards = np.zeros(tables)
    total = 0.0
    collected = 0
    while collected < wanted:
        masks = infos["action_mask"].astype(bool)
        rows = _rows(policy.feature_set, observations, env)
        player = policy if behaviour is None else behaviour
        logits = player.logits(
            rows if player is policy else _rows(player.feature_set, observations, env)
        )
        chosen, explored = _choose(
            logits, masks, rng, config.exploration, config.behaviour_temperature
        )
        if config.fit_on == "exploring":  # the others' values are left out of the fit
            chosen_actions.append(np.where(explored, chosen, -1))
        else:
            chosen_actions.append(chosen)
        feature_rows.append(rows)
        committed.append(observations[:, scalars + 9].astype(np.float64) * cap)
        scales.append(
            (observations[:, scalars] + observations[:, scalars + 1]).astype(np.float64) * cap
        )
        keys.append(np.stack((np.arange(tables), serial.copy()), axis=1))
        collected += tables
        deal_before = np.rint(observations[:, scalars + 7] * deals)
        observations, reward, terminated, _, infos = env.step(chosen)
        total += float(reward.sum())
        session_rewards += reward
        deal_after = np.rint(observations[:, scalars + 7] * deals)
        # The deal of the decision ended: this step's reward is its chips when no other
        # deal ended since (the next decision is in the next deal, or the session ended
        # with it); a reward that also holds deals the learner had no decision in (the
        # blinds it won or lost when everyone folded before it acted) would credit the
        # decision with chips it did not win, and the decision is left out of the fit.
        closed = terminated | (deal_after != deal_before)
        exact = np.where(terminated, deal_before == deals - 1, deal_after == deal_before + 1)
        for table in np.flatnonzero(closed).tolist():
            won = float(reward[table]) * big_blind if exact[table] else math.nan
            outcomes[table, int(serial[table])] = won
        serial[closed] += 1
        finished = np.flatnonzero(terminated)
        if finished.size:
            sessions = session_rewards[finished]
            league.record(
                names, np.where(sessions > 0, 1.0, np.where(sessions < 0, 0.0, 0.5)).tolist()
            )
            session_rewards[finished] = 0.0
    keys_all = np.concatenate(keys)
    chips = np.array(
        [outcomes.get((int(table), int(number)), math.nan) for table, number in keys_all]
    )
    deals_closed = sum(1 for value in outcomes.values() if not math.isnan(value))
    targets = (chips + np.concatenate(committed)) / np.concatenate(scales)
    return (
        np.concatenate(feature_rows),
        np.concatenate(chosen_actions),
        targets,
        total,
        deals_closed,
    )


def _choose(
    logits: np.ndarray,
    masks: np.ndarray,
    rng: np.random.Generator,
    exploration: float,
    temperature: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's action: the best legal one (at ``temperature`` 0) or one drawn from the
    legal actions' softmax at ``temperature``; a random legal one instead with
    probability ``exploration``. Also which rows were drawn at random."""
    legal_logits = np.where(masks, logits, -np.inf)
    if temperature > 0:  # the Gumbel-max draw: the argmax of logits/t plus Gumbel noise
        legal_logits = legal_logits / temperature - np.log(-np.log(rng.random(masks.shape)))
    best = legal_logits.argmax(axis=1)
    noise = np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)
    explore = rng.random(len(masks)) < exploration
    chosen: np.ndarray = np.where(explore, noise, best)
    return chosen, explore


def _rows(feature_set: str, observations: np.ndarray, env: SingleAgentVectorEnv) -> np.ndarray:
    """The features of ``feature_set`` of every table's decision: read from the
    observation vectors, or from the tables' typed views."""
    if feature_set == "vector":
        return features(observations)
    views = env.views()
    rows = np.zeros((len(views), len(FEATURE_SETS[feature_set])))
    for table, view in enumerate(views):
        if view is not None:  # every table has a decision under same-step autoreset
            rows[table] = observation_features(view)
    return rows


@dataclass(slots=True)
class _Sums:
    """One iteration's decisions as each action's sums of squares and products of
    features and of features and values: all a ridge fit needs of them."""

    squares: np.ndarray  # (actions, features, features)
    products: np.ndarray  # (actions, features)
    counts: np.ndarray  # (actions,)

    @classmethod
    def empty(cls, shape: tuple[int, ...]) -> _Sums:
        actions, width = shape
        return cls(np.zeros((actions, width, width)), np.zeros(shape), np.zeros(actions))

    def add(self, rows: np.ndarray, actions: np.ndarray, targets: np.ndarray) -> None:
        known = ~np.isnan(targets)
        rows, actions, targets = rows[known], actions[known], targets[known]
        for action in range(self.counts.size):
            chosen = actions == action
            x = rows[chosen]
            self.squares[action] += x.T @ x
            self.products[action] += x.T @ targets[chosen]
            self.counts[action] += chosen.sum()


def _fit(policy: LinearPolicy, statistics: list[_Sums], ridge: float, step: float = 1.0) -> None:
    """Refit ``policy`` on the decisions of ``statistics``, moving its weights ``step`` of
    the way from where they are to the fit's."""
    before = policy.weights.copy()
    policy.fit_sums(
        np.sum([sums.squares for sums in statistics], axis=0),
        np.sum([sums.products for sums in statistics], axis=0),
        np.sum([sums.counts for sums in statistics], axis=0),
        ridge,
    )
    if step < 1:
        policy.weights[:] = (1 - step) * before + step * policy.weights
