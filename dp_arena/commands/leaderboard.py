"""``dp-arena leaderboard``: rankings with uncertainty and ratings from finished runs.

``dp-arena leaderboard publish RUN_DIR... --out leaderboards/NAME`` writes
``leaderboard.json``, ``README.md`` and ``index.html``, with the replay pages of the
hands in ``hands/`` (see ``docs/rankings.md``);
``dp-arena leaderboard show RUN_DIR...`` prints the same ranking as a Markdown table
without writing anything.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from dp_arena.text import printable

# The keys of dp_arena.leaderboard.adjusted.ADJUSTMENTS, and none (not imported here:
# building the parser stays light).
ADJUSTED_CHOICES = ("board+action", "board-luck", "all-in", "none")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    publish = actions.add_parser(
        "publish",
        help="write leaderboard.json, README.md and index.html",
        description="Compute the leaderboard of finished runs and write it as JSON, Markdown"
        " and a self-contained HTML page.",
    )
    _common(publish)
    publish.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="DIR",
        help="the folder to write, e.g. leaderboards/NAME",
    )
    publish.add_argument(
        "--title", help="the leaderboard's title (default: the event's name, or the events')"
    )
    publish.add_argument(
        "--hands",
        type=int,
        metavar="N",
        help="render the replay pages of at most N hands, linked from the page; 0: none"
        " (default: 10,000)",
    )
    show = actions.add_parser(
        "show",
        help="print the ranking as a Markdown table",
        description="Print the leaderboard of finished runs as Markdown (nothing is written).",
    )
    _common(show)
    show.add_argument(
        "--title", help="the title printed (default: the event's name, or the events')"
    )


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run_dirs", nargs="+", type=Path, metavar="RUN_DIR", help="finished run directories"
    )
    parser.add_argument(
        "--by",
        choices=("bot", "player"),
        default="bot",
        help="rank bots (entrants of the same bot pooled; default) or every player apart",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the bootstrap's resampling (default: %(default)s)",
    )
    parser.add_argument(
        "--resamples", type=int, default=1000, help="bootstrap resamples (default: %(default)s)"
    )
    parser.add_argument(
        "--margin",
        type=float,
        default=50.0,
        metavar="MBB",
        help="report the deals needed to separate bots this far apart, in mbb/deal"
        " (default: %(default)s)",
    )
    parser.add_argument(
        "--tau",
        type=float,
        default=0.0,
        help="rating drift per game (OpenSkill tau); 0 for bots that do not change (default)",
    )
    parser.add_argument(
        "--adjusted",
        choices=ADJUSTED_CHOICES,
        default="board+action",
        help="the adjusted score shown beside the raw one: the luck of the board and of"
        " the dealer's draws from mixed strategies taken out (default), the board-luck"
        " correction alone, the all-in equity adjustment, or none (the raw scores only)",
    )
    parser.add_argument(
        "--no-equity",
        action="store_const",
        const="none",
        dest="adjusted",
        help="the same as --adjusted none",
    )


def run(args: argparse.Namespace) -> int:
    from dp_arena.errors import DPArenaError
    from dp_arena.leaderboard.adjusted import ADJUSTMENTS
    from dp_arena.leaderboard.hands import DEFAULT_MAX_HANDS, add_hand_pages
    from dp_arena.leaderboard.markdown import render_markdown
    from dp_arena.leaderboard.model import LeaderboardOptions
    from dp_arena.leaderboard.publish import compute, write_leaderboard
    from dp_arena.progress import ProgressLine
    from dp_arena.ratings.skill import RatingSettings

    command = f"dp-arena leaderboard {args.action}"
    progress = ProgressLine(sys.stderr, timed=True)
    try:
        options = LeaderboardOptions(
            title=args.title,
            by=args.by,
            seed=args.seed,
            resamples=args.resamples,
            margin=args.margin,
            rating=RatingSettings(tau=args.tau),
        )
        if args.adjusted == "none":
            options = replace(options, adjusted=None, not_adjusted="left out (--adjusted none)")
        else:
            options = replace(options, adjusted=ADJUSTMENTS[args.adjusted])
        data = compute(args.run_dirs, options, progress)
    except (DPArenaError, ValueError) as error:
        progress.finish()
        print(f"{command}: {error}", file=sys.stderr)
        return 2
    if args.action == "show":
        # Nothing is written: no links to files that are not there.
        print(render_markdown(data, links=False), end="")
        return 0
    try:
        max_hands = DEFAULT_MAX_HANDS if args.hands is None else args.hands
        pages: tuple[Path, ...] = ()
        if max_hands > 0:
            pages = add_hand_pages(data, args.run_dirs, args.out, max_hands=max_hands)
        files = write_leaderboard(data, args.out)
    except OSError as error:
        print(f"{command}: cannot write {args.out}: {error.strerror or error}", file=sys.stderr)
        return 2
    leader = data["ranking"][0]
    name = printable(leader["label"])  # untrusted
    print(
        f"{len(data['events'])} event(s), {data['deals']:,} deals, {len(data['ranking'])} ranked;"
        f" first: {name} ({leader['mbb_per_deal']:+,.1f} mbb/deal,"
        f" P(1st) {leader['p_first']:.0%})"
    )
    for path in files:
        print(f"wrote {path}")
    if pages:
        print(f"wrote {len(pages):,} replay page(s) of the hands in {args.out / 'hands'}")
    return 0
