"""``dp-arena submit PATH``: check a bot folder or archive and store it in the registry.

The submission is unpacked safely, its manifest read, a command bot's program checked
against what the sandbox may show (``forbidden_program`` otherwise: see
:mod:`dp_arena.sandbox.confinement.mounts`), a Python bot's class looked for in its entry file's
syntax (read within the bounds of :mod:`dp_arena.agents.source`), and the bot must pass
the same conformance check as ``dp-arena check-agent`` (sandboxed). An accepted bot is stored by
content hash: the same content again is a no-op, new content the next version. The
acceptance itself is :func:`dp_arena.sandbox.dealer.submission.submit`, which the
server's upload checks call too (given here as before).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dp_arena.commands import FAILED, USAGE
from dp_arena.commands.arguments import add_json_argument
from dp_arena.errors import SubmissionError
from dp_arena.registry import Registry
from dp_arena.sandbox.dealer.conformance import DEFAULT_STATES
from dp_arena.sandbox.dealer.submission import submit
from dp_arena.text import printable

__all__ = ["add_arguments", "run", "submit"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path", type=Path, metavar="PATH", help="a bot folder, .zip or .tar.gz with a bot.toml"
    )
    parser.add_argument("--name", help="register under this name instead of the manifest's")
    parser.add_argument("--owner", default="", help="who submits the bot")
    parser.add_argument(
        "--registry",
        type=Path,
        help="registry folder (default: $DP_ARENA_REGISTRY, else ./registry)",
    )
    parser.add_argument(
        "--states",
        type=int,
        default=DEFAULT_STATES,
        help="random states in the check (default: %(default)s, as check-agent)",
    )
    add_json_argument(parser, "the outcome")
    parser.add_argument(
        "--server",
        metavar="URL",
        help="upload to a dp-arena server instead (it runs the same check in its sandbox)",
    )
    parser.add_argument(
        "--token", metavar="TOKEN", help="your token on --server (default: $DP_ARENA_TOKEN)"
    )
    parser.add_argument(
        "--no-wait",
        action="store_true",
        help="with --server: print the submission's id and return without waiting for the check",
    )


def run(args: argparse.Namespace) -> int:
    """Exit status 0 (accepted, or unchanged), 1 (refused, with its reason), 2 (bad
    arguments, or a path that is not there); see :mod:`dp_arena.commands`."""
    if not args.path.exists():
        import difflib

        parent = args.path.parent
        names = [path.name for path in parent.iterdir()] if parent.is_dir() else []
        close = difflib.get_close_matches(args.path.name, names, n=3)
        hint = (
            f"; did you mean {' or '.join(str(parent / name) for name in close)}?" if close else ""
        )
        print(f"dp-arena submit: no such folder or archive {args.path}{hint}", file=sys.stderr)
        return USAGE
    if args.server:
        from dp_arena.commands.upload import upload

        return upload(args)
    registry = Registry(args.registry) if args.registry else Registry.default()
    try:
        outcome = submit(
            args.path, registry=registry, name=args.name, owner=args.owner, states=args.states
        )
    except SubmissionError as error:
        if args.json:
            print(json.dumps({"accepted": False, "reason": error.reason, "error": str(error)}))
        else:
            print(printable(f"dp-arena submit: refused ({error.reason}): {error}"))
        return FAILED
    if args.json:
        print(json.dumps({"accepted": True, **outcome}, indent=2))
    elif outcome["new"]:
        # The label is the submitter's text (stored before labels were checked, maybe).
        print(
            printable(
                f"accepted {outcome['ref']} (label {outcome['label']},"
                f" sha256 {str(outcome['sha256'])[:16]}...)"
                f" in {outcome['registry']}; seat it as registry:{outcome['ref']}"
            )
        )
    else:
        print(f"unchanged: this content is already {outcome['ref']} in {outcome['registry']}")
    return 0
