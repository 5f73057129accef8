"""The server's commands: ``dp-arena serve`` runs it; ``dp-arena server ...`` manages it
from the command line (authors and tokens, tournaments over the accepted bots, checking
a published match)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import urllib.request
from pathlib import Path
from typing import Any

from dp_arena.errors import ConfigError, DPArenaError
from dp_arena.server.db import DEFAULT_URL, Database
from dp_arena.server.settings import ServerSettings
from dp_arena.text import printable

__all__ = ["add_serve_arguments", "add_server_arguments", "run_serve", "run_server"]


def _db_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        default=DEFAULT_URL,
        metavar="URL",
        help="the database: sqlite:///FILE (default: %(default)s) or postgresql://USER@HOST/NAME",
    )
    parser.add_argument(
        "--data",
        type=Path,
        metavar="DIR",
        help="the server's files: registry, uploads, keys, tournaments"
        " (default: NAME-data/ beside an SQLite file, else ./arena-data)",
    )


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    _db_argument(parser)
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default: %(default)s)")
    parser.add_argument(
        "--ladder-deals",
        type=int,
        default=200,
        metavar="N",
        help="deals per ladder match (default: %(default)s)",
    )
    parser.add_argument(
        "--no-ladder", action="store_true", help="serve and check uploads, play no matches"
    )
    parser.add_argument(
        "--betting",
        choices=("no-limit", "pot-limit"),
        default="no-limit",
        help="the ladder's betting",
    )
    parser.add_argument(
        "--executor",
        choices=("serial", "ray"),
        default="serial",
        help="where ladder tables run: serial (the ladder's thread; every bot in its own"
        " sandbox) or ray (embedded, or the cluster of --ray-address)",
    )
    parser.add_argument("--workers", type=int, metavar="N", help="Ray workers (see dp-arena run)")
    parser.add_argument("--ray-address", metavar="ADDR", help="join this Ray cluster")
    parser.add_argument(
        "--ladder-pause", type=float, default=0.0, metavar="S", help="seconds between matches"
    )
    parser.add_argument(
        "--max-upload-bytes",
        type=int,
        default=16 * 1024 * 1024,
        metavar="N",
        help="largest archive taken (default: 16 MiB)",
    )
    parser.add_argument(
        "--uploads-per-hour",
        type=int,
        default=30,
        metavar="N",
        help="per author (default: %(default)s)",
    )
    parser.add_argument(
        "--requests-per-minute",
        type=int,
        default=1200,
        metavar="N",
        help="per client address, every request (default: %(default)s; 0: no limit)",
    )
    parser.add_argument(
        "--writes-per-minute",
        type=int,
        default=120,
        metavar="N",
        help="per client address, requests other than GET and HEAD (default: %(default)s;"
        " 0: no limit)",
    )
    parser.add_argument(
        "--check-states",
        type=int,
        default=200,
        metavar="N",
        help="random states of the conformance check (default: %(default)s, as submit)",
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=1000,
        metavar="N",
        help="bootstrap resamples of the standings",
    )
    parser.add_argument(
        "--behind-proxy",
        action="store_true",
        help="trust X-Forwarded-For and X-Forwarded-Proto from --forwarded-allow-ips",
    )
    parser.add_argument(
        "--forwarded-allow-ips",
        default="127.0.0.1",
        metavar="IPS",
        help="the proxies trusted with --behind-proxy (default: %(default)s)",
    )
    parser.add_argument(
        "--root-path", default="", metavar="PATH", help="the prefix a proxy mounts the server at"
    )
    parser.add_argument("--title", default="dp-arena ladder", help="the pages' title")


def settings_from(args: argparse.Namespace) -> ServerSettings:
    return ServerSettings(
        db_url=args.db,
        data_dir=None if args.data is None else args.data.absolute(),
        max_upload_bytes=args.max_upload_bytes,
        uploads_per_hour=args.uploads_per_hour,
        requests_per_minute=args.requests_per_minute,
        writes_per_minute=args.writes_per_minute,
        ladder=not args.no_ladder,
        ladder_deals=args.ladder_deals,
        betting=args.betting,
        executor=args.executor,
        workers=args.workers,
        ray_address=args.ray_address,
        ladder_pause=args.ladder_pause,
        check_states=args.check_states,
        resamples=args.resamples,
        behind_proxy=args.behind_proxy,
        title=args.title,
    )


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from dp_arena.server.app import create_app

    try:
        settings = settings_from(args)
        app = create_app(settings)
    except (ConfigError, DPArenaError) as error:
        print(f"dp-arena serve: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    print(
        f"dp-arena serve: {Database(settings.db_url).display_url}, data in {settings.data.root},"
        f" http://{args.host}:{args.port}{args.root_path}/",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        proxy_headers=args.behind_proxy,
        forwarded_allow_ips=args.forwarded_allow_ips if args.behind_proxy else None,
        root_path=args.root_path,
        log_level="info",
        access_log=False,
        server_header=False,
        timeout_graceful_shutdown=10,
    )
    return 0


# -- dp-arena server ACTION ------------------------------------------------------------------


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser(
        "add-author", help="add an author and print their bearer token (last line)"
    )
    add.add_argument("name", metavar="NAME")
    _db_argument(add)
    token = actions.add_parser("new-token", help="revoke an author's tokens and print a new one")
    token.add_argument("name", metavar="NAME")
    _db_argument(token)
    migrate = actions.add_parser("migrate", help="bring the database's schema up to date")
    _db_argument(migrate)
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
    _db_argument(tournament)
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
    _db_argument(verify)


def _database(args: argparse.Namespace) -> tuple[Database, ServerSettings]:
    settings = ServerSettings(
        db_url=args.db, data_dir=None if args.data is None else args.data.absolute()
    )
    database = Database(settings.db_url)
    settings.data.create()
    database.migrate()
    return database, settings


def run_server(args: argparse.Namespace) -> int:
    from dp_arena.server import crud

    try:
        if args.action == "verify-match":
            return _verify(args)
        database, settings = _database(args)
        if args.action == "migrate":
            print(f"{database.display_url}: at revision {database.revision()}")
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


def _verify(args: argparse.Namespace) -> int:
    from dp_arena.commands.verify import ReplayProgress
    from dp_arena.server.ladder import verify_match

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
    deals = data["deals"] * len(data["tables"])
    tested = [bot for bot in data["bots"] if bot.get("clairvoyance") is not None]
    flagged = [str(bot["ref"]) for bot in tested if bot["clairvoyance"]["flagged"]]
    named = ", ".join(flagged) or "none"
    clairvoyance = (
        f"; each bot's clairvoyance test is what they give (flagged: {named})" if tested else ""
    )
    print(
        printable(
            f"match {data['id']}: the key hashes to the commitment {data['commitment'][:16]}...,"
            f" and all {deals} deals hold the key's cards and replay to their nets{clairvoyance}"
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

    database = Database(settings.db_url)
    with database.session() as session:
        match = crud.match(session, match_id)
        if match is None:
            raise ConfigError(f"there is no match {match_id} in {database.display_url}")
        submissions = crud.submissions_by_id(session, [match.first_id, match.second_id])
        return views.match_json(match, submissions, crud.authors(session))
