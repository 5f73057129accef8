"""``dp-arena luck``: the luck meter. The same field of built-in bots plays a classic
freezeout and a duplicate match of as many hands, seed after seed; each event's order is
compared with the true order measured by one long duplicate match (see
:mod:`dp_arena.leaderboard.luck` and ``docs/rankings.md``).

``dp-arena luck [--bots a,b,c] [--seeds N] [--truth-deals N] [--plot PNG] [--json FILE]``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dp_arena.agents import BUILTINS
from dp_arena.progress import ProgressLine


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bots",
        default="random,calling-station,aggressive,tag,equity,learned",
        help="the field: 2 to 10 different agent specs, comma-separated (default: %(default)s)",
    )
    parser.add_argument(
        "--seeds", type=int, default=30, help="trials, one seed each (default: %(default)s)"
    )
    parser.add_argument("--first-seed", type=int, default=1, help="seed of the first trial")
    parser.add_argument(
        "--truth-deals",
        type=int,
        default=1500,
        help="deals of the long duplicate match that measures the true order"
        " (default: %(default)s)",
    )
    parser.add_argument(
        "--freezeouts",
        default="1",
        metavar="M[,M...]",
        help="freezeouts per classic event: 1 (default) is a single freezeout; several"
        " lengths (1,4,16) compare the two kinds of event as they grow",
    )
    parser.add_argument("--plot", type=Path, metavar="PNG", help="write the figure here")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the full report here")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def run(args: argparse.Namespace) -> int:
    from dp_arena.leaderboard.luck import MAX_SEEDS, METHODS, LuckSettings, plot_luck, run_luck

    bots = tuple(bot.strip() for bot in args.bots.split(",") if bot.strip())
    unknown = [bot for bot in bots if bot not in BUILTINS]
    if unknown:
        print(
            f"dp-arena luck: --bots: {', '.join(unknown)} not built-in bots"
            f" ({', '.join(BUILTINS)})",
            file=sys.stderr,
        )
        return 2
    if not 1 <= args.seeds <= MAX_SEEDS:  # before a tuple of that many seeds is made
        print(
            f"dp-arena luck: --seeds must be from 1 to {MAX_SEEDS:_}, not {args.seeds}",
            file=sys.stderr,
        )
        return 2
    try:
        lengths = tuple(int(length) for length in args.freezeouts.split(","))
        settings = LuckSettings(
            bots=bots,
            seeds=tuple(range(args.first_seed, args.first_seed + args.seeds)),
            truth_deals=args.truth_deals,
            lengths=lengths,
        )
    except ValueError as error:
        print(f"dp-arena luck: {error}", file=sys.stderr)
        return 2

    # On a terminal one line rewritten in place; in a log a line for each step.
    shown = ProgressLine(sys.stderr, live=not args.quiet, log_every=0.0)
    report = run_luck(settings, lambda message: shown.show(f"luck: {message}", force=True))
    shown.finish()
    truth = report.truth
    print(
        f"True order (duplicate match, {truth.deals} deals at {len(bots)} tables; sure of"
        f" {len(truth.known_pairs)} of {len(bots) * (len(bots) - 1) // 2} pairs):"
    )
    for name, mean, low, high in truth.scores:
        print(f"  {name:<16} {mean:+10.1f} mbb/deal  [{low:+.1f}, {high:+.1f}]")
    print(
        f"\n{len(settings.seeds)} trials a length; each a classic event (a freezeout, or a"
        " series of them) and a duplicate match of as many hands.\nKendall's tau against the"
        " true order (1 = found it, 0 = no better than chance):"
    )
    header = ("hands", "mean", "sd", "median", "10%", "90%", "best bot on top")
    widths = (6, 6, 6, 7, 6, 6, 16)
    print(
        f"  {'event':<11} {'series':>6}"
        + "".join(f" {h:>{w}}" for h, w in zip(header, widths, strict=True))
    )
    for length in settings.lengths:
        for method in METHODS:
            summary = report.summary(method, length)
            print(
                f"  {method:<11} {length:>6} {summary['hands_mean']:6.0f}"
                f" {summary['tau_mean']:+6.2f} {summary['tau_sd']:6.2f}"
                f" {summary['tau_median']:+7.2f} {summary['tau_q10']:+6.2f}"
                f" {summary['tau_q90']:+6.2f} {summary['winner_share']:16.0%}"
            )
    print(
        "All trials pooled, tau of the mean order: "
        + ", ".join(f"{method} {report.pooled(method)[1]:+.2f}" for method in METHODS)
    )
    if args.plot:
        plot_luck(report, args.plot)
        print(f"\nfigure: {args.plot}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
        print(f"report: {args.json}")
    return 0
