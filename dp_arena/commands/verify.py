"""``dp-arena verify RUN_DIR [--commitment HEX] [--results-digest HEX] [--json]``: check a
finished run against the deck key its results reveal: the commitment, the results
digest, every deck, every hand, every score (see :mod:`dp_arena.runner.verify`). Exit
status 0 when every check passes, 1 when one fails, 2 when the run directory cannot be
verified at all."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dp_arena.errors import RunError


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
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")


def run(args: argparse.Namespace) -> int:
    from dp_arena.runner.verify import verify_run

    try:
        verification = verify_run(
            args.run_dir, commitment=args.commitment, results_digest=args.results_digest
        )
    except RunError as error:
        print(f"dp-arena verify: {error}", file=sys.stderr)
        return 2
    if args.json:
        document = {
            "run_dir": str(args.run_dir),
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
        }
        print(json.dumps(document, indent=2))
    else:
        print(verification.report(), end="")
    return 0 if verification.passed else 1
