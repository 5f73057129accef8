"""``dp-arena train``: train the built-in learning bot and evaluate it.

Runs REINFORCE on the duplicate environment (:mod:`dp_arena.learn.train`), writes the
weights (by default to a new file under ``runs/``), then scores the trained policy
against each training opponent in a heads-up duplicate match with a 95% confidence
interval. The default settings train in about two minutes on one core.

An existing file is never overwritten without ``--force``, and it is refused before any
training starts: the shipped ``agents/learned_weights.json``, which the built-in
``learned`` bot plays, changes only when it is named as ``--output`` with ``--force``.

With ``--config RECIPE``: fitted Monte-Carlo control on the vector environment
(:mod:`dp_arena.learn.fitted`, a ``[train]`` recipe) or self-play against a league
(:mod:`dp_arena.learn.selfplay`, a ``[self_play]`` recipe) as the recipe says, then
heads-up duplicate matches against every built-in bot and a six-max duplicate match of
them all, and a training card (data, time, opponents, results) beside the weights. The
shipped bot is made by self-play from the fitted recipe's weights::

    dp-arena train --config configs/learned-fitted.toml \
        --output agents/learned_fitted_weights.json --force
    dp-arena train --config configs/learned.toml --output agents/learned_weights.json --force
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from dp_arena.commands import arguments
from dp_arena.errors import ConfigError

if TYPE_CHECKING:
    # Imported when the command runs, not when the CLI lists its options: the learner
    # loads NumPy and PettingZoo.
    from dp_arena.learn.policy import LinearPolicy
    from dp_arena.learn.train import TrainConfig

RUNS_DIR = Path("runs")


def default_output(root: Path = RUNS_DIR) -> Path:
    """A new weights file under ``runs/``, named by the time training starts."""
    stem = f"learned-weights-{time.strftime('%Y%m%d-%H%M%S')}"
    candidate, number = root / f"{stem}.json", 2
    while candidate.exists():
        candidate = root / f"{stem}-{number}.json"
        number += 1
    return candidate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = _defaults()
    parser.add_argument(
        "--config",
        type=Path,
        help="a training recipe (TOML): fitted control on the vector env, then the full"
        " evaluation (the REINFORCE options below are then unused)",
    )
    parser.add_argument(
        "--card",
        type=Path,
        help="the training card written with --config (default: the weights file with .md)",
    )
    _number(parser, "--episodes", int, defaults.episodes, "training episodes")
    _number(parser, "--tables", int, defaults.tables, "mirrored tables per episode")
    _number(parser, "--deals", int, defaults.deals, "deals per table per episode, even")
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=list(defaults.opponents),
        metavar="SPEC",
        help="opponents, one per episode in turn (default: %(default)s)",
    )
    _number(parser, "--learning-rate", float, defaults.learning_rate, "Adam step size")
    _number(parser, "--entropy", float, defaults.entropy, "entropy bonus")
    arguments.add_betting_argument(parser, "the training tables' betting", defaults.betting)
    _number(parser, "--seed", int, defaults.seed, "training seed")
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="weights file (default: a new file under runs/); an existing file is refused",
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite the --output file if it exists"
    )
    _number(parser, "--evaluate-deals", int, 2000, "deal blocks per evaluation, 0 to skip")
    _number(
        parser,
        "--evaluate-seed",
        int,
        20260,
        "deck seed of the evaluation, unlike any training deck",
    )


def _number(
    parser: argparse.ArgumentParser, flag: str, kind: type[float], default: float, text: str
) -> None:
    """A number option (``kind``: int or float) whose help ends with its default."""
    parser.add_argument(flag, type=kind, default=default, help=f"{text} (default: %(default)s)")


def _defaults() -> TrainConfig:
    from dp_arena.learn.train import TrainConfig

    return TrainConfig()


def _writable_output(args: argparse.Namespace) -> Path | None:
    """The weights file to write, or ``None`` (said why) when it is refused."""
    output: Path = args.output if args.output is not None else default_output()
    if output.is_dir():
        print(f"dp-arena train: {output} is a directory, not a weights file", file=sys.stderr)
        return None
    if output.exists() and not args.force:
        print(
            f"dp-arena train: {output} exists; choose another --output,"
            " or add --force to overwrite it",
            file=sys.stderr,
        )
        return None
    return output


def _save(
    policy: LinearPolicy, output: Path, started: float, *, force: bool, **metadata: str
) -> float | None:
    """The seconds ``policy`` trained since ``started``, recorded in it with ``metadata``
    and written to ``output``; ``None`` (said why) when it cannot be written."""
    elapsed = time.perf_counter() - started
    policy.metadata["training_seconds"] = round(elapsed, 1)
    policy.metadata.update(metadata)
    return elapsed if _write(output, policy.to_text(), force=force) else None


def _write(output: Path, text: str, *, force: bool) -> bool:
    output.parent.mkdir(parents=True, exist_ok=True)
    try:
        # Exclusive creation unless forced: a file that appeared while training ran is
        # still not overwritten.
        with output.open("w" if force else "x") as stream:
            stream.write(text)
    except FileExistsError:
        print(
            f"dp-arena train: {output} appeared while training; add --force to overwrite it",
            file=sys.stderr,
        )
        return False
    return True


def run(args: argparse.Namespace) -> int:
    if args.config is not None:
        return _run_recipe(args)
    from dp_arena.learn import PolicyBot, TrainConfig, duplicate_score, train

    try:
        config = TrainConfig(
            episodes=args.episodes,
            tables=args.tables,
            deals=args.deals,
            opponents=tuple(args.opponents),
            learning_rate=args.learning_rate,
            entropy=args.entropy,
            seed=args.seed,
            betting=args.betting,
        )
    except ConfigError as error:
        print(f"dp-arena train: {error}", file=sys.stderr)
        return 2
    output = _writable_output(args)
    if output is None:
        return 2
    print(
        f"training: {config.episodes} episodes x {config.tables} tables x {config.deals} deals,"
        f" opponents {', '.join(config.opponents)}, {config.betting}, seed {config.seed}",
        flush=True,
    )
    started = time.perf_counter()
    step = max(1, config.episodes // 10)

    def report(episode) -> None:  # type: ignore[no-untyped-def]
        if episode.episode % step == step - 1 or episode.episode == config.episodes - 1:
            print(
                f"  episode {episode.episode + 1:>5}: vs {episode.opponent:<16} mean net"
                f" {episode.mean_net_bb:+7.2f} bb/hand  ({time.perf_counter() - started:5.1f} s)",
                flush=True,
            )

    policy = train(config, on_episode=report)
    elapsed = _save(policy, output, started, force=args.force)
    if elapsed is None:
        return 2
    print(f"trained in {elapsed:.1f} s; weights written to {output}")
    print(f'  play them with LearnedBot(weights="{output}") (agents/learned.py)')
    if args.evaluate_deals > 0:
        deals = args.evaluate_deals + args.evaluate_deals % 2
        print(
            f"duplicate match (dp_arena.match), {deals} deals x 2 tables,"
            f" seed {args.evaluate_seed}:"
        )
        for opponent in config.opponents:
            score = duplicate_score(
                lambda: PolicyBot(policy),
                opponent,
                deals=deals,
                seed=args.evaluate_seed,
                betting=config.betting,
            )
            verdict = (
                "beats it" if score.low > 0 else ("loses" if score.high < 0 else "no clear result")
            )
            print(f"  {score}: {verdict}", flush=True)
    return 0


def _run_recipe(args: argparse.Namespace) -> int:
    from dp_arena.learn.fitted import train_fitted
    from dp_arena.learn.recipe import evaluate_policy, load_recipe, training_card
    from dp_arena.learn.selfplay import SelfPlayConfig, train_self_play

    try:
        recipe = load_recipe(args.config)
    except ConfigError as error:
        print(f"dp-arena train: {error}", file=sys.stderr)
        return 2
    config = recipe.train
    output = _writable_output(args)
    if output is None:
        return 2
    card_path: Path = args.card if args.card is not None else output.with_suffix(".md")
    if isinstance(config, SelfPlayConfig):
        print(
            f"training (self-play): {config.iterations} iterations x {config.decisions:,}"
            + (
                f" decisions, every member heads-up and {config.six_max} six-max line-ups"
                if config.stratified
                else f" decisions over {config.lineups} line-ups"
            )
            + f" drawn from a league of {', '.join(config.builtins)}"
            + (", the weights started from" if config.start_in_league else "")
            + f" and the learner's snapshots, {config.betting}, seed {config.seed}",
            flush=True,
        )
    else:
        print(
            f"training (fitted control): {config.iterations} iterations x {config.decisions:,}"
            f" decisions over {len(config.lineups)} line-ups, {config.betting},"
            f" seed {config.seed}",
            flush=True,
        )
    started = time.perf_counter()
    totals = {"decisions": 0, "deals": 0}

    def report(iteration, policy) -> None:  # type: ignore[no-untyped-def]
        totals["decisions"] += iteration.decisions
        totals["deals"] += iteration.deals
        rewards = ", ".join(
            f"{name.split()[0] if ' ' not in name else 'six-max'} {value:+.2f}"
            for name, value in iteration.mean_reward_bb.items()
        )
        print(
            f"  iteration {iteration.iteration + 1:>3}: {iteration.decisions:,} decisions in"
            f" {iteration.seconds:.0f} s; reward per deal (bb, exploring): {rewards}",
            flush=True,
        )

    league = None
    if isinstance(config, SelfPlayConfig):
        policy, trained_league = train_self_play(config, on_iteration=report)
        league = trained_league.table()
    else:
        policy = train_fitted(config, on_iteration=report)
    elapsed = _save(policy, output, started, force=args.force, recipe=str(args.config))
    if elapsed is None:
        return 2
    print(f"trained in {elapsed / 60:.1f} min; weights written to {output}", flush=True)
    evaluation = None
    deals = args.evaluate_deals if args.evaluate_deals != 2000 else recipe.evaluate_deals
    if deals > 0:
        print(f"evaluating: heads-up {deals} deals, six-max {recipe.six_max_deals} deals")
        evaluation = evaluate_policy(
            policy,
            deals=deals,
            six_max_deals=recipe.six_max_deals,
            seed=recipe.evaluate_seed,
            betting=config.betting,
            progress=lambda line: print(f"  {line}", flush=True),
            temperature=recipe.temperature,
        )
    command = f"dp-arena train --config {args.config} --output {output}" + (
        " --force" if args.force else ""
    )
    card = training_card(
        recipe,
        policy,
        evaluation,
        seconds=elapsed,
        command=command,
        decisions=totals["decisions"],
        deals=totals["deals"],
        league=league,
    )
    card_path.parent.mkdir(parents=True, exist_ok=True)
    card_path.write_text(card)
    print(f"training card written to {card_path}")
    if evaluation is not None:
        print(
            "beats every built-in heads-up: "
            + ("yes" if evaluation.beats_every_builtin else "no")
            + "; first at six-max: "
            + ("yes" if evaluation.first_at_six_max else "no")
        )
    return 0
