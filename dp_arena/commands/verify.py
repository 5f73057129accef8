"""``dp-arena verify RUN_DIR [--commitment HEX] [--results-digest HEX] [--replay |
--replay-winners] [--quiet] [--json]``: check a finished run against the deck key its
results reveal: the commitment, the results digest, every deck, every hand, every score,
and with ``--replay`` every recorded decision, played again by the event's own bots (see
:mod:`dp_arena.runner.verify` and :mod:`dp_arena.runner.replay`). Exit status 0 when
every check passes, 1 when one fails, 2 when the run directory cannot be verified at all
or the replay asked for cannot be played (a bot's code changed since the run)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import IO, Any

from dp_arena.errors import RunError
from dp_arena.progress import ProgressLine, format_duration
from dp_arena.runner.replay import Replay
from dp_arena.runner.verification import Verification

PROGRESS_SECONDS = 30.0  # between progress lines when stderr is not a terminal


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", type=Path, help="a finished run directory")
    parser.add_argument(
        "--commitment",
        metavar="HEX",
        help="the commitment the organiser published before the event (checked too)",
    )
    parser.add_argument(
        "--results-digest",
        metavar="HEX",
        help="the results digest the organiser published with the key after the event:"
        " this copy's results.json and every file it names must give it",
    )
    replay = parser.add_mutually_exclusive_group()
    replay.add_argument(
        "--replay",
        action="store_true",
        help="also play every table-session again with the event's own bots (sandboxed as"
        " in the run, from the code whose hashes the run recorded), one at a time and in"
        " reverse order, and check every recorded decision, net, standing, prize and hand"
        " history; names every bot that answers otherwise than recorded (a bot whose"
        " actions hung on anything but its own view, or drew its own randomness, or a"
        " record rewritten after the event). It takes about as long as playing the event"
        " serially",
    )
    replay.add_argument(
        "--replay-winners",
        action="store_true",
        help="as --replay, for the table-sessions of the prize winners only (in an event"
        " that pays none, of the players placed first): the check before paying out",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress lines while a replay plays"
    )
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")


def run(args: argparse.Namespace) -> int:
    from dp_arena.runner.service import verify

    replay = "all" if args.replay else "winners" if args.replay_winners else None
    progress = None if replay is None or args.quiet else ReplayProgress(sys.stderr)
    try:
        verification = verify(
            args.run_dir,
            commitment=args.commitment,
            results_digest=args.results_digest,
            replay=replay,
            on_progress=progress,
        )
    except RunError as error:
        print(f"dp-arena verify: {error}", file=sys.stderr)
        return 2
    finally:
        if progress is not None:
            progress.finish()
    if args.json:
        print(json.dumps(verification_json(verification), indent=2))
    else:
        print(verification.report(), end="")
    return verification.status


def verification_json(verification: Verification) -> dict[str, Any]:
    """The ``--json`` document of a verification."""
    document: dict[str, Any] = {
        "run_dir": str(verification.run_dir),
        "passed": verification.passed,
        "key": None if verification.key is None else verification.key.hex,
        "predictable": None if verification.key is None else verification.key.public,
        "results_digest": verification.digest,
        "checks": [
            {
                "name": check.name,
                "passed": check.passed,
                "detail": check.detail,
                "problems": list(check.problems),
            }
            for check in verification.checks
        ],
        "replay_refused": list(verification.refused),
    }
    if verification.replay is not None:
        document["replay"] = replay_json(verification.replay)
    return document


def replay_json(replay: Replay) -> dict[str, Any]:
    """What a replay found, as JSON: every bot that differs with its first difference, and
    every bot that could not be seated."""
    return {
        "table_sessions": replay.table_sessions,
        "deals": replay.deals,
        "decisions": replay.decisions,
        "seconds": round(replay.seconds, 3),
        "differs": [
            {
                "player": player,
                "decisions": count,
                "table_sessions": tables,
                "first": {
                    "session": first.session,
                    "section": first.section,
                    "table": first.table,
                    "deal": first.deal,
                    "decision": first.decision + 1,
                    "seat": first.seat,
                    "recorded": first.recorded,
                    "replayed": first.replayed,
                },
            }
            for player, (first, count, tables) in replay.by_player().items()
        ],
        "unseated": [
            {"player": unseated.player, "where": unseated.where, "detail": unseated.detail}
            for unseated in replay.unseated
        ],
        "departures": list(replay.departures),
        "notes": list(replay.notes),
    }


class ReplayProgress:
    """Progress of a replay on ``stream``: a line rewritten in place on a terminal, else a
    line every :data:`PROGRESS_SECONDS` and at the end."""

    def __init__(self, stream: IO[str]) -> None:
        self.line = ProgressLine(stream, log_every=PROGRESS_SECONDS)

    def __call__(self, replay: Replay, units: int) -> None:
        rate = replay.deals / replay.seconds if replay.seconds > 0 else 0.0
        left = (units - replay.table_sessions) * replay.seconds / max(1, replay.table_sessions)
        found = len(replay.by_player()) + len(replay.unseated)
        self.line.show(
            f"{replay.label}: table-sessions {replay.table_sessions:,}/{units:,}"
            f" | {replay.deals:,} deals"
            f" | {rate:,.0f} deals/s | ETA {format_duration(left)}"
            + (f" | {found} bot{'s' if found != 1 else ''} differ" if found else ""),
            force=replay.table_sessions == units,
        )

    def finish(self) -> None:
        self.line.finish()
