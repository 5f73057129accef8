"""``dp-arena resume RUN_DIR [--executor auto|ray|serial] [--workers N] [--ray-address ADDR]
[--quiet]``: continue a run that was interrupted, to the ``results.json`` an
uninterrupted run would have written."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from dp_arena.runner.launch import add_executor_arguments

    parser.add_argument(
        "run_dir", metavar="RUN_DIR", type=Path, help="the run directory to continue"
    )
    add_executor_arguments(parser)
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress line (also the default when the CI variable is set or stderr is"
        " not a terminal)",
    )


def run(args: argparse.Namespace) -> int:
    from dp_arena.commands.run import play_run
    from dp_arena.runner.launch import executor_options
    from dp_arena.runner.resume import is_finished, resume_run

    run_dir: Path = args.run_dir
    if is_finished(run_dir):
        print(f"{run_dir} has already finished; its results are in {run_dir / 'results.json'}")
        return 0
    quiet = args.quiet or bool(os.environ.get("CI"))
    return play_run(
        "resume", run_dir, lambda: resume_run(run_dir, executor_options(args), quiet=quiet)
    )
