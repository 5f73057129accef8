"""``dp-arena run CONFIG [--run-dir DIR] [--registry DIR] [--allow-absent] [--executor
auto|ray|serial] [--workers N] [--ray-address ADDR] [--no-mirrors-apart] [--quiet]``: check
that every entrant loads, run the whole event from its config, write the run directory
(with its checkpoint store, see ``docs/running.md``) and print the summary."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from dp_arena.commands import NOT_LOADED, USAGE
from dp_arena.commands.arguments import (
    add_executor_arguments,
    add_play_arguments,
    add_registry_argument,
    executor_options,
    is_quiet,
)
from dp_arena.errors import ConfigError, DPArenaError
from dp_arena.rundir import RunDir
from dp_arena.tournament.config import EventConfig

if TYPE_CHECKING:
    from dp_arena.runner.launch import RunOutcome

# The options run shares with other commands live in dp_arena.commands.arguments; they
# are given here too, as before.
__all__ = [
    "add_arguments",
    "add_executor_arguments",
    "add_play_arguments",
    "add_registry_argument",
    "check_entrants",
    "executor_options",
    "is_quiet",
    "play_run",
    "run",
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="CONFIG", help="the event's config file (see configs/)")
    parser.add_argument(
        "--run-dir",
        metavar="DIR",
        type=Path,
        help="where results go (default: a new folder under runs/)",
    )
    add_registry_argument(parser, config=True)
    parser.add_argument(
        "--allow-absent",
        action="store_true",
        help="play even when some entrants' bots are not there or cannot load: they sit out"
        " as absent players, and the results, summary and pages say so (default: refuse to"
        " start)",
    )
    add_play_arguments(parser)


def play_run(command: str, run_dir: Path, play: Callable[[], RunOutcome | None]) -> int:
    """Play a run (``play`` starts or continues it; ``None``: it had finished) and print
    its summary, how it ran and where its results are: the exit status (2 when the run
    directory or the ledger refused, 130 when interrupted)."""
    from dp_arena.runner.service import closing_lines

    try:
        outcome = play()
    except DPArenaError as error:  # the run directory, or the ledger, refused
        print(f"dp-arena {command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"\ndp-arena {command}: interrupted; continue with `dp-arena resume {run_dir}`",
            file=sys.stderr,
        )
        return 130
    if outcome is None:
        print(f"{run_dir} has already finished; its results are in {RunDir(run_dir).results}")
        return 0
    print(closing_lines(outcome, run_dir))
    return 0


def run(args: argparse.Namespace) -> int:
    from dp_arena.runner import service
    from dp_arena.tournament.event import default_run_dir
    from dp_arena.tournament.loading import load_config

    try:
        config = load_config(args.config, registry=args.registry, allow_absent=args.allow_absent)
    except ConfigError as error:
        print(f"dp-arena run: {error}", file=sys.stderr)
        if error.absent_players:
            print(
                f"fix the config, or play without them: dp-arena run {args.config} --allow-absent",
                file=sys.stderr,
            )
        return USAGE
    quiet = is_quiet(args)
    checked = check_entrants(config, quiet=quiet, allow_absent=args.allow_absent)
    if checked is None:
        print(
            f"nothing was written; fix the config, or play without them:"
            f" dp-arena run {args.config} --allow-absent",
            file=sys.stderr,
        )
        return NOT_LOADED
    config = checked
    run_dir = args.run_dir or default_run_dir(config)
    try:  # before a key is announced for a directory in use, or for bad options
        key = service.claim(config, run_dir)
        options = executor_options(args)
    except DPArenaError as error:
        print(f"dp-arena run: {error}", file=sys.stderr)
        return 2
    if not quiet:
        print(
            f"deck key: {key.describe()}\n(publish {RunDir(run_dir).commitment} before the"
            f" event; the key is revealed in {RunDir.RESULTS} when it ends)",
            file=sys.stderr,
        )
    status = play_run(
        "run", run_dir, lambda: service.start(config, run_dir, options, quiet=quiet, key=key)
    )
    if status == 0:
        print(
            "deck key revealed: publish it and the results digest; anyone can check a copy of"
            f" the event with `dp-arena verify {run_dir} --results-digest HEX --replay`"
        )
    return status


def check_entrants(
    config: EventConfig, *, quiet: bool, allow_absent: bool, command: str = "run"
) -> EventConfig | None:
    """Load every entrant once (the preflight); the config to play (entrants that failed
    marked absent when ``allow_absent``, beside those whose bots the config's check did
    not find), or ``None`` after printing why it cannot play."""
    from dp_arena.runner.service import check_entrants as preflight

    live = not quiet and sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if live:
            sys.stderr.write(f"\rloading the entrants' bots: {done}/{total}")
            sys.stderr.flush()

    try:
        checked = preflight(config, allow_absent=allow_absent, on_loaded=progress)
    except ConfigError as error:
        print(f"dp-arena {command}: {error}", file=sys.stderr)
        return None
    finally:
        if live:
            sys.stderr.write("\r\033[K")
    if checked.problems:
        print(
            f"dp-arena {command}: WARNING: {checked.text}\nplaying anyway (--allow-absent):"
            " they sit out as absent players, and the results say so",
            file=sys.stderr,
        )
    return checked.config
