"""The ``dp-arena`` command line: one subcommand per module in :mod:`dp_arena.commands`.

Subcommand modules are imported only when their command runs, so ``dp-arena --help``
stays fast and a command's heavy dependencies (Ray, NumPy) load only when needed.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
from collections.abc import Sequence
from types import ModuleType

__all__ = ["COMMANDS", "main"]

# The server's two commands live with the server, which sits above the commands (its
# routes call the commands' own functions).
SERVER = "server"

# name -> (module under dp_arena.commands, or SERVER; one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("demo", "play a short duplicate demo of built-in bots and print the comparison"),
    "replay": ("replay", "replay PHH hand histories through the engine"),
    "match": ("match", "play a duplicate match between agents with full seat rotation"),
    "new-bot": ("new_bot", "write a bot folder to start from, in Python, C, Node.js or Perl"),
    "check-agent": ("check_agent", "run the conformance check a bot author runs before submitting"),
    "submit": ("submit", "submit a bot folder or archive to the bot registry"),
    "plan": ("plan", "print the whole plan of an event format before any card is dealt"),
    "run": ("run", "run an event from a config file"),
    "resume": ("resume", "resume a run that was interrupted"),
    "verify": (
        "verify",
        "check a finished run against its revealed key and results digest; --replay plays it again",
    ),
    "rollouts": (
        "rollouts",
        "value a finished event's mixed-strategy draws by rollouts, for the adjusted score",
    ),
    "leaderboard": ("leaderboard", "publish leaderboards from run directories"),
    "luck": ("luck", "measure how much luck duplicate removes compared to a classic freezeout"),
    "train": ("train", "train the built-in learning bot"),
    "exploit": ("exploit", "measure how much a bot can be beaten: local best response (LBR)"),
    "serve": (SERVER, "run the competition server: uploads, the duplicate ladder, the pages"),
    "server": (
        SERVER,
        "manage a competition server: authors, tokens, organisers, moderation, tournaments",
    ),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dp-arena",
        description="A competition harness for poker bots playing duplicate capped hold'em.",
    )
    parser.add_argument("--version", action="version", version=_version())
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        subparser = subparsers.add_parser(name, help=help_text, description=help_text)
        if name == only and module_name == SERVER:
            server = _server_module()
            adder = server.add_serve_arguments if name == "serve" else server.add_server_arguments
            adder(subparser)
        elif name == only:
            _command_module(module_name).add_arguments(subparser)
    return parser


def _command_module(module_name: str):  # type: ignore[no-untyped-def]
    return importlib.import_module(f"dp_arena.commands.{module_name}")


def _server_module() -> ModuleType:
    return importlib.import_module("dp_arena.server.cli")


def _version() -> str:
    from dp_arena import __version__

    return f"dp-arena {__version__}"


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and hasattr(signal, "SIGPIPE"):
        # `dp-arena ... | head` ends quietly, as command-line tools do.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    arguments = list(sys.argv[1:] if argv is None else argv)
    command = next((arg for arg in arguments if not arg.startswith("-")), None)
    if command not in COMMANDS:
        command = None
    parser = build_parser(only=command)
    args = parser.parse_args(arguments)
    if args.command is None:
        parser.print_help()
        return 2
    module_name = COMMANDS[args.command][0]
    if module_name == SERVER:
        server = _server_module()
        runner = server.run_serve if args.command == "serve" else server.run_server
        return int(runner(args) or 0)
    module = _command_module(module_name)
    return int(module.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
