"""``dp-arena rollouts RUN_DIR [--rollouts K] [--force] [--quiet]``: value every action
the dealer drew from a bot's mix in a finished event by rollouts played by fresh copies of
the event's bots, into ``RUN_DIR/rollouts.sqlite``, which the adjusted score of
``dp-arena leaderboard`` then uses in place of the fixed blend (see
:mod:`dp_arena.runner.rollouts`). Exit status 0 when every table-session is valued, 2
when the run directory cannot be valued (not a finished run, a bot's code changed, the
sidecar holds other rollouts), 130 when interrupted: run it again to go on."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

from dp_arena.commands import USAGE
from dp_arena.errors import RunError
from dp_arena.progress import ProgressLine, format_duration

if TYPE_CHECKING:
    from dp_arena.runner.rollouts import RolloutProgress

PROGRESS_SECONDS = 30.0  # between progress lines when stderr is not a terminal
DEFAULT_ROLLOUTS = 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run_dir",
        metavar="RUN_DIR",
        type=Path,
        help="a finished run directory (results.json, store.sqlite, the revealed key)",
    )
    parser.add_argument(
        "--rollouts",
        metavar="K",
        type=int,
        default=DEFAULT_ROLLOUTS,
        help="rollouts per action of every mix (default %(default)s): the cost grows with"
        " K, the noise left in the values shrinks as 1/K",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="value the event again from the start when RUN_DIR/rollouts.sqlite holds values"
        " made with another K or by another dp-arena (without it, the command refuses)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines")


def run(args: argparse.Namespace) -> int:
    from dp_arena.runner.rollouts import event_rollouts

    progress = None if args.quiet else RolloutLine(sys.stderr)
    try:
        done = event_rollouts(
            args.run_dir, rollouts=args.rollouts, force=args.force, on_progress=progress
        )
    except RunError as error:
        print(f"dp-arena rollouts: {error}", file=sys.stderr)
        return USAGE
    finally:
        if progress is not None:
            progress.finish()
    kept = f" ({done.kept:,} valued before)" if done.kept else ""
    print(
        f"{args.run_dir}: {done.total:,} table-sessions valued by {args.rollouts} rollouts per"
        f" action{kept}; {done.rollouts:,} rollouts in {format_duration(done.seconds)}"
    )
    return 0


class RolloutLine:
    """Progress on ``stream``: table-sessions done of all, rollouts per second, time left."""

    def __init__(self, stream: IO[str]) -> None:
        self.line = ProgressLine(stream, log_every=PROGRESS_SECONDS)

    def __call__(self, progress: RolloutProgress) -> None:
        played = progress.done - progress.kept
        rate = progress.rollouts / progress.seconds if progress.seconds > 0 else 0.0
        left = (progress.total - progress.done) * progress.seconds / max(1, played)
        self.line.show(
            f"rollouts: table-sessions {progress.done:,}/{progress.total:,}"
            f" | {progress.rollouts:,} rollouts | {rate:,.0f} rollouts/s"
            f" | ETA {format_duration(left)}",
            force=progress.done == progress.total,
        )

    def finish(self) -> None:
        self.line.finish()
