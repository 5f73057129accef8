"""``dp-arena run CONFIG [--run-dir DIR] [--quiet]``: run a whole event from its config,
write the run directory and print the summary."""

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


def run(args: argparse.Namespace) -> int:
    from dp_arena.tournament.config import load_config
    from dp_arena.tournament.event import Progress, default_run_dir, run_event

    try:
        config = load_config(args.config)
    except ConfigError as error:
        print(f"dp-arena run: {error}", file=sys.stderr)
        return 2
    run_dir = args.run_dir or default_run_dir(config)
    quiet = args.quiet or bool(os.environ.get("CI"))
    try:
        event = run_event(config, run_dir, progress=None if quiet else Progress())
    except RunError as error:
        print(f"dp-arena run: {error}", file=sys.stderr)
        return 2
    print(event.summary, end="")
    print(
        f"\n{event.deals_played} table-deals in {event.seconds:.1f} s;"
        f" results in {run_dir / 'results.json'}"
    )
    return 0
