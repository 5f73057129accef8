"""``dp-arena new-bot NAME [--lang LANG] [--dir PARENT]``: write a bot folder to start
from, in any language the sandbox runs (:mod:`dp_arena.skeletons`), and say the three
steps from there: test it, check it, play it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dp_arena.commands import USAGE
from dp_arena.errors import AgentError
from dp_arena.skeletons import LANGUAGES, missing_tools, new_bot


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "name",
        metavar="NAME",
        help="the bot's name: its folder's and its name in a registry (a-z 0-9 - _ .)",
    )
    parser.add_argument(
        "--lang",
        choices=list(LANGUAGES),
        default="python",
        help="; ".join(f"{key}: {skeleton.describe}" for key, skeleton in LANGUAGES.items())
        + " (default: %(default)s)",
    )
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path(),
        metavar="PARENT",
        help="make the folder NAME in PARENT (default: here)",
    )


def run(args: argparse.Namespace) -> int:
    """Exit status 0, or 2 for a name or folder that cannot be used."""
    try:
        folder = new_bot(args.name, args.lang, args.dir)
    except (AgentError, OSError) as error:
        print(f"dp-arena new-bot: {error}", file=sys.stderr)
        return USAGE
    skeleton = LANGUAGES[args.lang]
    shown = folder if args.dir != Path() else Path(args.name)
    files = ", ".join(sorted(path.name for path in folder.iterdir()))
    print(f"made {shown}/ ({skeleton.describe}): {files}")
    steps = [f"test it:  {skeleton.test.format(name=shown)}"]
    if skeleton.build is not None:
        steps.insert(0, f"build it: make -C {shown}")
    steps += [
        f"check it: dp-arena check-agent {shown}/",
        f"play it:  dp-arena match {shown}/ random",
    ]
    print("next (see its README.md):")
    print("\n".join(f"  {step}" for step in steps))
    for tool in missing_tools(args.lang):
        print(
            f"note: {tool} is not installed here; the bot needs it to be built or played",
            file=sys.stderr,
        )
    return 0
