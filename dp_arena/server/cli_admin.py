"""``dp-arena server ACTION``: the server managed from the command line (authors and
tokens, organisers, moderation, tournaments over the accepted bots, checking a published
match)."""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from pathlib import Path
from typing import Any

from dp_arena.errors import ConfigError, DPArenaError
from dp_arena.server.cli_serve import db_arguments, open_database
from dp_arena.server.db import Database
from dp_arena.server.settings import ServerSettings
from dp_arena.text import printable

__all__ = ["add_server_arguments", "run_server"]


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser(
        "add-author", help="add an author and print their bearer token (last line)"
    )
    add.add_argument("name", metavar="NAME")
    db_arguments(add)
    token = actions.add_parser("new-token", help="revoke an author's tokens and print a new one")
    token.add_argument("name", metavar="NAME")
    db_arguments(token)
    organiser = actions.add_parser(
        "organiser-token",
        help="print a new token of organiser NAME (made if new; its old token revoked):"
        " it signs in to the admin page, /admin",
    )
    organiser.add_argument("name", metavar="NAME")
    db_arguments(organiser)
    for action, about in (
        ("authors", "list the authors: bots, submissions, disabled or not"),
        ("bots", "list the bots: author, versions, which one is in the ladder"),
        ("pause-ladder", "start no new match until resume-ladder (one playing ends first)"),
        ("resume-ladder", "let the ladder start matches again"),
    ):
        db_arguments(actions.add_parser(action, help=about))
    for action, about in (
        (
            "disable-author",
            (
                "disable author NAME: its tokens and sessions stop working and its bots"
                " leave the ladder; nothing is deleted"
            ),
        ),
        ("enable-author", "enable author NAME again: its tokens work, its bots are back"),
        (
            "withdraw-bot",
            "withdraw every version of bot NAME from the ladder (its matches and pages stay)",
        ),
    ):
        moderated = actions.add_parser(action, help=about)
        moderated.add_argument("name", metavar="NAME")
        db_arguments(moderated)
    migrate = actions.add_parser("migrate", help="bring the database's schema up to date")
    db_arguments(migrate)
    tournament = actions.add_parser(
        "tournament", help="play a tournament config over the accepted bots and publish it"
    )
    tournament.add_argument("config", type=Path, metavar="CONFIG", nargs="?")
    tournament.add_argument(
        "--resume",
        type=int,
        metavar="ID",
        help="go on with tournament ID, cut short (its finished table-sessions and its key"
        " kept), then publish it; instead of CONFIG",
    )
    db_arguments(tournament)
    tournament.add_argument(
        "--executor",
        choices=("serial", "ray"),
        default="serial",
        help="where its tables run (default: %(default)s), as for dp-arena run",
    )
    tournament.add_argument("--workers", type=int, metavar="N", help="Ray workers")
    tournament.add_argument("--ray-address", metavar="ADDR", help="join this Ray cluster")
    verify = actions.add_parser(
        "verify-match",
        help="check a finished match's decks and hands against its revealed key;"
        " --replay plays it again with its bots",
    )
    verify.add_argument(
        "source",
        metavar="ID|URL|FILE",
        help="a match of this server's database (its id), /api/matches/ID of a server,"
        " or that JSON saved",
    )
    verify.add_argument(
        "--replay",
        action="store_true",
        help="also play the match's tables again with its bots, seated from the registry by"
        " their versions (sandboxed, one table at a time, in reverse order), and check every"
        " recorded decision: names every bot that answers otherwise than recorded",
    )
    verify.add_argument(
        "--registry",
        type=Path,
        metavar="DIR",
        help="the bot registry to seat the bots from (default: the server's, in --data)",
    )
    verify.add_argument("--quiet", action="store_true", help="no progress lines while replaying")
    db_arguments(verify)


def _database(args: argparse.Namespace) -> tuple[Database, ServerSettings]:
    settings = ServerSettings(
        db_url=args.db, data_dir=None if args.data is None else args.data.absolute()
    )
    return open_database(settings), settings


def run_server(args: argparse.Namespace) -> int:
    from dp_arena.server import crud

    try:
        if args.action == "verify-match":
            return _verify(args)
        database, settings = _database(args)
        if args.action == "migrate":
            print(f"{database.display_url}: at revision {database.revision()}")
            return 0
        if args.action in MODERATION:
            from dp_arena.server.moderation import command_line

            for line in command_line(database, args.action, getattr(args, "name", None)):
                print(printable(line))
            return 0
        if args.action == "tournament":
            from dp_arena.runner.launch import ExecutorOptions
            from dp_arena.server.tournaments import resume_tournament, run_tournament

            options = ExecutorOptions(args.executor, args.workers, args.ray_address)
            if (args.config is None) == (args.resume is None):
                raise ConfigError("give a tournament CONFIG, or --resume ID (not both)")
            if args.resume is not None:
                return resume_tournament(database, settings, args.resume, options)
            return run_tournament(database, settings, args.config, options)
        with database.session() as session:
            if args.action == "add-author":
                author, token = crud.add_author(session, args.name)
                print(f"author {author.name} added (id {author.id}); their token, shown once:")
            elif args.action == "organiser-token":
                organiser, token, new = crud.organiser_token(session, args.name)
                said = "added" if new else "given a new token (the old one no longer works)"
                print(
                    f"organiser {organiser.name} {said}; sign in to /admin with this token,"
                    " shown once:"
                )
            else:
                found = crud.author_named(session, args.name)
                if found is None:
                    raise ConfigError(f"there is no author named {args.name!r}", field="name")
                revoked = crud.revoke_tokens(session, found)
                token = crud.add_token(session, found)
                print(f"{revoked} token(s) of {found.name} revoked; the new one, shown once:")
        print(token)
        return 0
    except (ConfigError, DPArenaError) as error:
        print(printable(f"dp-arena server {args.action}: {error}"), file=sys.stderr)
        return 2


MODERATION = (
    "authors",
    "bots",
    "disable-author",
    "enable-author",
    "withdraw-bot",
    "pause-ladder",
    "resume-ladder",
)


def _verify(args: argparse.Namespace) -> int:
    from dp_arena.commands.verify import ReplayProgress
    from dp_arena.server.matches import verify_match

    source: str = args.source
    settings = ServerSettings(
        db_url=args.db, data_dir=None if args.data is None else args.data.absolute()
    )
    if source.isdigit():
        data = _stored_match(settings, int(source))
    elif source.startswith(("http://", "https://")):
        with urllib.request.urlopen(source, timeout=60) as answer:
            data = json.loads(answer.read())
    else:
        data = json.loads(Path(source).read_text(encoding="utf-8"))
    registry = (args.registry or settings.data.registry) if args.replay else None
    progress = None if registry is None or args.quiet else ReplayProgress(sys.stderr)
    try:
        problems = verify_match(data, replay_from=registry, on_progress=progress)
    finally:
        if progress is not None:
            progress.finish()
    if problems:
        for problem in problems[:50]:
            print(printable(f"FAIL {problem}"))
        return 1
    deals, tables = int(data["deals"]), len(data["tables"])
    tested = [bot for bot in data["bots"] if bot.get("clairvoyance") is not None]
    flagged = [str(bot["ref"]) for bot in tested if bot["clairvoyance"]["flagged"]]
    named = ", ".join(flagged) or "none"
    clairvoyance = (
        f"; each bot's clairvoyance test is what they give (flagged: {named})" if tested else ""
    )
    print(
        printable(
            f"match {data['id']}: the key hashes to the commitment {data['commitment'][:16]}...,"
            f" and all {deals:,} deals at its {tables} tables ({deals * tables:,} table-deals)"
            f" hold the key's cards and replay to their nets{clairvoyance}"
            + (
                "; played again by its bots, every decision was answered as recorded"
                if registry is not None
                else ""
            )
        )
    )
    return 0


def _stored_match(settings: ServerSettings, match_id: int) -> dict[str, Any]:
    """The match's data as ``GET /api/matches/ID`` gives it, from the database."""
    from dp_arena.server import crud, views

    database = Database(settings.db_url, registry=settings.data.registry)
    with database.session() as session:
        match = crud.match(session, match_id)
        if match is None:
            raise ConfigError(f"there is no match {match_id} in {database.display_url}")
        return views.match_data(session, match)
