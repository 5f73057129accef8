"""A training recipe: the trainer's config (``[self_play]``: self-play against a league,
:mod:`dp_arena.learn.selfplay`; or ``[train]``: fitted control against fixed line-ups,
:mod:`dp_arena.learn.fitted`) and its evaluation in one TOML file, the evaluation itself
(heads-up duplicate matches against each built-in bot, and a six-max duplicate match of
all of them), and the training card written beside the weights.

``dp-arena train --config configs/learned.toml`` runs a recipe end to end; the card
records what was trained on, for how long, and what it scored.
"""

from __future__ import annotations

import platform
import time
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from dp_arena.agents import InProcessSeat, Seat, load_agent
from dp_arena.engine import Betting
from dp_arena.errors import ConfigError
from dp_arena.learn.bot import PolicyBot
from dp_arena.learn.evaluate import DuplicateScore, duplicate_score, summarize
from dp_arena.learn.fitted import FittedConfig
from dp_arena.learn.policy import LinearPolicy
from dp_arena.learn.selfplay import SelfPlayConfig
from dp_arena.match import MatchConfig, play_match

__all__ = ["Evaluation", "Recipe", "evaluate_policy", "load_recipe", "training_card"]

BUILTINS = ("tag", "equity", "aggressive", "calling-station", "random")
LEARNER = "learned"  # the policy's name in the evaluation's matches


@dataclass(frozen=True, slots=True)
class Recipe:
    train: FittedConfig | SelfPlayConfig
    evaluate_deals: int = 2000
    six_max_deals: int = 600
    evaluate_seed: int = 20260
    source: str = ""
    # How the evaluation plays the policy: its softmax at this temperature, as the shipped
    # bot plays (agents/learned.py), or greedily (None).
    temperature: float | None = 0.1


@dataclass(frozen=True, slots=True)
class Evaluation:
    heads_up: tuple[DuplicateScore, ...]
    six_max: tuple[DuplicateScore, ...]  # every agent's score, best first
    seconds: float

    @property
    def beats_every_builtin(self) -> bool:
        return all(score.low > 0 for score in self.heads_up)

    @property
    def first_at_six_max(self) -> bool:
        return bool(self.six_max) and self.six_max[0].opponent == LEARNER


def load_recipe(path: str | Path) -> Recipe:
    """The recipe in a TOML file: a ``[self_play]`` table of :class:`SelfPlayConfig`
    fields (its ``warm_start`` file named relative to the recipe's folder) or a
    ``[train]`` table of :class:`FittedConfig` fields, and an ``[evaluate]`` table
    (``deals``, ``six_max_deals``, ``seed``)."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: not a training recipe: {error}") from None
    if "self_play" in data and "train" in data:
        raise ConfigError(f"{path}: give [self_play] or [train], not both", field="train")
    table = "self_play" if "self_play" in data else "train"
    kind: type[FittedConfig] | type[SelfPlayConfig] = (
        SelfPlayConfig if table == "self_play" else FittedConfig
    )
    train = dict(data.get(table, {}))
    known = {item.name for item in fields(kind)}
    unknown = sorted(set(train) - known)
    if unknown:
        raise ConfigError(f"{path}: [{table}] has unknown fields {unknown}", field=unknown[0])
    if "lineups" in train and table == "train":
        train["lineups"] = tuple(tuple(lineup) for lineup in train["lineups"])
    for name in ("raise_sizes", "builtins"):
        if name in train:
            train[name] = tuple(train[name])
    evaluate = dict(data.get("evaluate", {}))
    unknown = sorted(set(evaluate) - {"deals", "six_max_deals", "seed", "temperature"})
    if unknown:
        raise ConfigError(f"{path}: [evaluate] has unknown fields {unknown}", field=unknown[0])
    if train.get("warm_start"):  # a file named relative to the recipe's folder
        train["warm_start"] = str(Path(path).parent / train["warm_start"])
    try:
        config = kind(**train)
    except TypeError as error:
        raise ConfigError(f"{path}: {error}") from None
    return Recipe(
        train=config,
        evaluate_deals=int(evaluate.get("deals", 2000)),
        six_max_deals=int(evaluate.get("six_max_deals", 600)),
        evaluate_seed=int(evaluate.get("seed", 20260)),
        source=str(path),
        temperature=_temperature(path, evaluate.get("temperature", 0.1)),
    )


def _temperature(path: str | Path, value: object) -> float | None:
    """``[evaluate] temperature``: a positive number, or ``"greedy"`` for none."""
    if value == "greedy":
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigError(
            f"{path}: [evaluate] temperature must be a positive number or 'greedy', not {value!r}",
            field="temperature",
        )
    return float(value)


def evaluate_policy(
    policy: LinearPolicy,
    *,
    deals: int,
    six_max_deals: int,
    seed: int,
    betting: str = "no-limit",
    opponents: tuple[str, ...] = BUILTINS,
    progress: Any = None,
    temperature: float | None = None,
) -> Evaluation:
    """Heads-up duplicate matches against each opponent, then a duplicate match of the
    policy and all of them at one table (every seat rotation); the policy played greedily,
    or as its softmax at ``temperature``."""
    started = time.perf_counter()
    heads_up = []
    for opponent in opponents:
        score = duplicate_score(
            lambda: PolicyBot(policy, temperature),
            opponent,
            deals=deals,
            seed=seed,
            betting=betting,
        )
        heads_up.append(score)
        if progress is not None:
            progress(f"heads-up: {score}")
    six_max: list[DuplicateScore] = []
    if six_max_deals > 0:

        def seat(spec: str, name: str) -> Seat:
            agent = PolicyBot(policy, temperature) if spec == LEARNER else load_agent(spec)
            return InProcessSeat(agent, name)

        result = play_match(
            MatchConfig(
                specs=(LEARNER, *opponents),
                deals=six_max_deals,
                seed=seed + 1,
                betting=Betting(betting),
            ),
            seat_factory=seat,
        )
        for index, name in enumerate((LEARNER, *opponents)):
            six_max.append(summarize(list(result.block_scores[index]), name))
        six_max.sort(key=lambda score: score.mean, reverse=True)
        if progress is not None:
            for score in six_max:
                progress(f"six-max: {score.opponent:<16} {score}")
    return Evaluation(tuple(heads_up), tuple(six_max), time.perf_counter() - started)


def training_card(
    recipe: Recipe,
    policy: LinearPolicy,
    evaluation: Evaluation | None,
    *,
    seconds: float,
    command: str,
    decisions: int,
    deals: int,
    league: list[tuple[str, float, float, float]] | None = None,
    exploitability: str | None = None,
) -> str:
    """The training card: the data, the time, the opponents and the results (and, when
    measured, how much local best response wins against the bot)."""
    config = recipe.train
    lines = [
        "# Training card: the `learned` bot",
        "",
        f"Made by `{command}` from `{recipe.source}`.",
        "",
        "## Data",
        "",
        *(
            _self_play_data(config, policy, decisions, deals, league)
            if isinstance(config, SelfPlayConfig)
            else _fitted_data(config, policy, decisions, deals)
        ),
        "",
        "## Time",
        "",
        (
            f"- Training: {seconds / 60:.1f} minutes on one core of a shared 2-core machine"
            f" (Python {platform.python_version()})."
        ),
    ]
    if evaluation is not None:
        lines += [
            f"- Evaluation: {evaluation.seconds / 60:.1f} minutes.",
            "",
            "## Results",
            "",
            (
                f"Duplicate matches (`dp_arena.match`, public seed {recipe.evaluate_seed},"
                " decks unlike any training deck), the bot "
                + (
                    "greedy"
                    if recipe.temperature is None
                    else f"answering its softmax at a temperature of {recipe.temperature:g}"
                )
                + ", in milli-big-blinds per deal with 95% intervals over deal blocks."
            ),
            "",
            (
                f"Heads-up, {recipe.evaluate_deals} deals, each at two tables with the seats"
                " swapped:"
            ),
            "",
            "| opponent | mbb/deal | 95% interval | beats it |",
            "|---|---:|---:|---|",
            *[
                f"| {score.opponent} | {score.mean:+.0f} | {score.low:+.0f} .. {score.high:+.0f}"
                f" | {'yes' if score.low > 0 else 'no'} |"
                for score in evaluation.heads_up
            ],
        ]
        if evaluation.six_max:
            lines += [
                "",
                (
                    f"Six-max, all six at one table, {recipe.six_max_deals} deals at every seat"
                    " rotation:"
                ),
                "",
                "| rank | agent | mbb/deal | 95% interval |",
                "|---:|---|---:|---:|",
                *[
                    f"| {rank} | {score.opponent} | {score.mean:+.0f} |"
                    f" {score.low:+.0f} .. {score.high:+.0f} |"
                    for rank, score in enumerate(evaluation.six_max, start=1)
                ],
            ]
    if exploitability:
        lines += ["", "## Exploitability", "", exploitability]
    return "\n".join(lines) + "\n"


def _fitted_data(
    config: FittedConfig, policy: LinearPolicy, decisions: int, deals: int
) -> list[str]:
    return [
        (
            f"- Method: fitted Monte-Carlo control of a linear action-value model over"
            f" {policy.weights.shape[1]} features (`dp_arena.learn.fitted`), played greedily."
        ),
        (
            f"- {config.iterations} iterations of {config.decisions:,} learner decisions"
            f" ({decisions:,} decisions, {deals:,} deals with a decision in all), exploration"
            f" {config.exploration:g}, ridge {config.ridge:g}, each fit on the last {config.keep}"
            f" iterations."
        ),
        f"- Environment: `SingleAgentVectorEnv`, {config.tables} tables per line-up,"
        f" sessions of {config.rounds} rounds, {config.betting}, reward `{config.reward}`"
        + (f" (reference `{config.reference}`)" if config.reward == "duplicate" else "")
        + f", seed {config.seed}.",
        "- Opponents (one line-up per vector env, equal shares of the decisions):",
        *[f"  - {', '.join(lineup)}" for lineup in config.lineups],
    ]


def _fits_on(config: SelfPlayConfig) -> str:
    """Which iterations' decisions each fit of a self-play run uses, in words."""
    if config.keep_first + config.keep >= config.iterations:
        return "each fit on every iteration's decisions so far"
    last = f"each fit on the last {config.keep} iterations' decisions"
    return last + (f" and the first {config.keep_first}'s" if config.keep_first else "")


def _self_play_data(
    config: SelfPlayConfig,
    policy: LinearPolicy,
    decisions: int,
    deals: int,
    league: list[tuple[str, float, float, float]] | None,
) -> list[str]:
    features = (
        "the observation vectors (`dp_arena.learn.vector_features`)"
        if policy.feature_set == "vector"
        else "the typed observation (`dp_arena.learn.features`)"
    )
    lines = [
        (
            f"- Method: self-play; fitted Monte-Carlo control of a linear action-value model"
            f" over {policy.weights.shape[1]} features of {features} (`dp_arena.learn.selfplay`),"
            + (
                " trained greedily."
                if not config.behaviour_temperature
                else f" trained on the softmax of its values at {config.behaviour_temperature:g}."
            )
        ),
        (
            f"- {config.iterations} iterations of {config.decisions:,} learner decisions"
            f" ({decisions:,} decisions, {deals:,} deals with a decision in all), exploration"
            f" {config.exploration:g}, ridge {config.ridge:g}, {_fits_on(config)}"
            + (
                f", the weights moved {config.step:g} of the way to each fit"
                if config.step < 1
                else ""
            )
            + (
                f", the learner's decisions drawn from the softmax of its values at"
                f" {config.behaviour_temperature:g}"
                if config.behaviour_temperature
                else ""
            )
            + "."
        ),
        *(
            [
                f"- Started from `{Path(config.warm_start).name}`"
                + (
                    ", its weights the first ones"
                    if policy.metadata.get("warm_start_as") == "weights"
                    else f", its decisions the first {config.warm_iterations} iterations'"
                )
                + (", and a member of the league (`start`)." if config.start_in_league else ".")
            ]
            if config.warm_start
            else []
        ),
        (
            f"- League: the built-in bots {', '.join(config.builtins)}"
            + (", the weights started from" if config.start_in_league else "")
            + f" and the learner's frozen snapshots (one every {config.snapshot_every}"
            f" iterations, the last {config.capacity} kept), drawn by prioritised fictitious"
            f" self-play (weighting `{config.weighting}`); "
            + (
                f"every member but the snapshots heads-up every iteration (their"
                f" {config.lineups - config.six_max} shares of the decisions split half evenly,"
                f" half by the draw's chances) and {config.six_max} six-handed line-ups drawn"
                f" (five members), each a share, of {config.lineups} shares."
                if config.stratified
                else f"{config.lineups} line-ups an iteration, {config.six_max} of them"
                " six-handed (five members drawn), the others heads-up."
            )
        ),
        (
            f"- Environment: `SingleAgentVectorEnv`, {config.tables} tables per line-up,"
            f" sessions of {config.rounds} rounds, {config.betting}, seed {config.seed}."
        ),
    ]
    selection = policy.metadata.get("selection")
    if selection:
        members = list(next(iter(selection.values())))
        lines += [
            "",
            (
                f"Model selection: of the snapshots and the last weights, the ones whose worst"
                f" heads-up duplicate score ({config.select_deals:,} deals, decks of the"
                f" training's own seed) against {', '.join(members)} is the highest:"
                f" `{policy.metadata.get('selected')}`."
            ),
            "",
            "| weights | " + " | ".join(members) + " | worst |",
            "|---|" + "---:|" * (len(members) + 1),
            *[
                f"| {name} | "
                + " | ".join(f"{scores[member]:+.0f}" for member in members)
                + f" | {min(scores.values()):+.0f} |"
                for name, scores in selection.items()
            ],
        ]
    if league:
        lines += [
            "",
            (
                "The league at the end (sessions played against each member, the learner's win"
                " rate, its chance to be drawn next):"
            ),
            "",
            "| member | sessions | win rate | drawn |",
            "|---|---:|---:|---:|",
            *[
                f"| {name} | {sessions:,.0f} | {rate:.2f} | {chance:.2f} |"
                for name, sessions, rate, chance in league
            ],
        ]
    return lines
