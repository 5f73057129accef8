"""The options several commands share, each written once: the bots a command plays (what
a spec may be), a match's ``--deals``, the
table's ``--betting``, a public ``--seed`` for the decks, ``--trusted``, ``--registry``,
``--json``, ``--quiet``, and where a run's tables play (``--executor``, ``--workers``,
``--ray-address``, ``--mirrors-apart``)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from dp_arena.engine import Betting
from dp_arena.errors import ConfigError

if TYPE_CHECKING:
    from dp_arena.runner.executors import ExecutorOptions

__all__ = [
    "add_betting_argument",
    "add_deal_arguments",
    "add_deck_seed_argument",
    "add_executor_arguments",
    "add_json_argument",
    "add_play_arguments",
    "add_progress_argument",
    "add_registry_argument",
    "add_spec_argument",
    "add_trusted_argument",
    "check_deals",
    "executor_options",
    "is_quiet",
]


# What an agent spec may be, in every command that takes one.
SPEC_KINDS = (
    "a built-in name (random, calling-station, aggressive, tag, equity, learned), a bot"
    " folder with a bot.toml (mybot/, as submit takes it), path/to/file.py:Class,"
    " package.module:Class, registry:NAME[@VERSION], or a command line (see docs/agents.md)"
)


def add_spec_argument(
    parser: argparse.ArgumentParser, *, metavar: str = "SPEC", agents: str | None = None
) -> None:
    """The bot a command plays, ``spec`` (``metavar`` in the usage line); or, given
    ``agents`` (how many, in words), the agents of a match, ``specs``."""
    if agents is None:
        parser.add_argument("spec", metavar=metavar, help=f"the bot: {SPEC_KINDS}")
    else:
        parser.add_argument("specs", nargs="+", metavar=metavar, help=f"{agents}: {SPEC_KINDS}")


def add_deal_arguments(parser: argparse.ArgumentParser, *, deals: int, played: str) -> None:
    """What a command that plays a match deals: ``--deals`` (``deals`` of them unless
    told, each ``played``), ``--betting`` and a public ``--seed``."""
    parser.add_argument(
        "--deals",
        type=int,
        default=deals,
        help=f"deals, each played {played} (default: %(default)s)",
    )
    add_betting_argument(parser)
    add_deck_seed_argument(parser)


# Deals of a match, each played at every table: far more than any comparison needs, and
# few enough that every table's deal records fit in memory (about 1.3 KB a table-deal).
MAX_DEALS = 100_000


def check_deals(deals: int) -> int:
    """``--deals`` as told, unless it is over :data:`MAX_DEALS` (a :class:`ConfigError`
    naming the option); a count under 1 is refused where the match's config is made."""
    if deals > MAX_DEALS:
        raise ConfigError(
            f"--deals must be an integer from 1 to {MAX_DEALS:_}, not {deals}", field="deals"
        )
    return deals


def add_betting_argument(
    parser: argparse.ArgumentParser,
    what: str = "betting structure",
    default: str = Betting.NO_LIMIT.value,
) -> None:
    """``--betting``: the table's betting structure, no-limit unless told; ``what`` it is
    in the help (a ladder's, a learner's tables')."""
    parser.add_argument(
        "--betting",
        choices=[betting.value for betting in Betting],
        default=default,
        help=f"{what} (default: %(default)s)",
    )


def add_deck_seed_argument(parser: argparse.ArgumentParser) -> None:
    """``--seed``: a public seed for the decks instead of a new secret key."""
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="a public seed for the decks, for tests and demos: every deck is then predictable"
        " (default: a new secret key, revealed at the end)",
    )


def add_trusted_argument(parser: argparse.ArgumentParser) -> None:
    """``--trusted``: Python bots in this process instead of the sandbox."""
    parser.add_argument(
        "--trusted",
        action="store_true",
        help="run Python bots in this process instead of the sandbox (only for code you trust)",
    )


def add_registry_argument(parser: argparse.ArgumentParser, *, config: bool = False) -> None:
    """``--registry DIR``: the bot registry that ``registry:`` specs name; for a command
    that reads a config (``run``, ``plan``), after the config's own ``[registry]`` path."""
    first = "the config's [registry] path, else " if config else ""
    parser.add_argument(
        "--registry",
        type=Path,
        metavar="DIR",
        help=f"the bot registry of registry: {'entrants' if config else 'specs'}"
        f" (default: {first}$DP_ARENA_REGISTRY, else ./registry)",
    )


def add_json_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """``--json``: print ``what`` as JSON."""
    parser.add_argument("--json", action="store_true", help=f"print {what} as JSON")


def add_progress_argument(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress line on stderr."""
    parser.add_argument("--quiet", action="store_true", help="no progress indicator on stderr")


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    """What ``run`` and ``resume`` are told about playing a run: where its tables run
    (:func:`add_executor_arguments`) and ``--quiet``."""
    add_executor_arguments(parser)
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress line (also the default when the CI variable is set or stderr is"
        " not a terminal)",
    )


def add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    """``--executor``, ``--workers``, ``--ray-address`` and ``--mirrors-apart`` (for
    ``run`` and ``resume``; :func:`executor_options` reads them)."""
    from dp_arena.runner.executors import EXECUTORS  # the runner, only for the commands of runs

    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
        default="auto",
        help="where table-sessions run: auto (default: the cluster of --ray-address if"
        " given, else serial or an embedded Ray, whichever the event's size pays for),"
        " ray (an embedded local Ray, or the cluster of --ray-address) or serial (in"
        " this process)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="embedded Ray: worker processes (default: this machine's cores);"
        " on a cluster: the most tasks in flight (default: the cluster's CPUs)",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="join an existing Ray cluster: auto (RAY_ADDRESS or the cluster started"
        " on this machine), HOST:PORT of its head, or ray://HOST:PORT (Ray Client)",
    )
    parser.add_argument(
        "--mirrors-apart",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="on a Ray cluster of several nodes, play the copies of a bot in one section"
        " on different nodes (default); --no-mirrors-apart lets Ray place the tables",
    )


def executor_options(args: argparse.Namespace) -> ExecutorOptions:
    """The executor :func:`add_executor_arguments`' options name."""
    from dp_arena.runner.executors import ExecutorOptions

    return ExecutorOptions(args.executor, args.workers, args.ray_address, args.mirrors_apart)


def is_quiet(args: argparse.Namespace) -> bool:
    """``--quiet`` given, or the CI variable set."""
    return bool(args.quiet or os.environ.get("CI"))
