"""``dp-arena run CONFIG [--run-dir DIR] [--executor ray|serial] [--workers N]
[--ray-address ADDR] [--quiet]``: run a whole event from its config, write the run
directory (with its checkpoint store, see ``docs/running.md``) and print the summary."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from dp_arena.errors import ConfigError, RunError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="CONFIG", help="the event's config file (see configs/)")
    parser.add_argument(
        "--run-dir",
        metavar="DIR",
        type=Path,
        help="where results go (default: a new folder under runs/)",
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress line (also the default when the CI variable is set)",
    )
    from dp_arena.runner.launch import add_executor_arguments

    add_executor_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from dp_arena.runner.launch import COMMITMENT_FILE, event_key_for, executor_options, start_run
    from dp_arena.tournament.config import load_config
    from dp_arena.tournament.event import default_run_dir

    try:
        config = load_config(args.config)
    except ConfigError as error:
        print(f"dp-arena run: {error}", file=sys.stderr)
        return 2
    run_dir = args.run_dir or default_run_dir(config)
    quiet = args.quiet or bool(os.environ.get("CI"))
    key = event_key_for(config)
    if not quiet:
        print(
            f"deck key: {key.describe()}\n(publish {run_dir / COMMITMENT_FILE} before the"
            " event; the key is revealed in results.json when it ends)",
            file=sys.stderr,
        )
    try:
        outcome = start_run(config, run_dir, executor_options(args), quiet=quiet, key=key)
    except RunError as error:
        print(f"dp-arena run: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"\ndp-arena run: interrupted; continue with `dp-arena resume {run_dir}`",
            file=sys.stderr,
        )
        return 130
    print(outcome.event.summary, end="")
    print(f"\n{outcome.report()}\nresults in {run_dir / 'results.json'}")
    print(f"deck key revealed; anyone can check the event with `dp-arena verify {run_dir}`")
    return 0
