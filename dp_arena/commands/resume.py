"""``dp-arena resume RUN_DIR [--executor auto|ray|serial] [--workers N] [--ray-address ADDR]
[--quiet]``: continue a run that was interrupted, to the ``results.json`` an
uninterrupted run would have written."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from dp_arena.commands.arguments import add_play_arguments

    parser.add_argument(
        "run_dir", metavar="RUN_DIR", type=Path, help="the run directory to continue"
    )
    add_play_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from dp_arena.commands.arguments import executor_options, is_quiet
    from dp_arena.commands.run import play_run
    from dp_arena.runner import service

    run_dir: Path = args.run_dir
    quiet = is_quiet(args)
    return play_run(
        "resume", run_dir, lambda: service.resume(run_dir, executor_options(args), quiet=quiet)
    )
