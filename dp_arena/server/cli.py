"""The server's commands: ``dp-arena serve`` runs it; ``dp-arena server ...`` manages it
from the command line (authors and tokens, organisers, moderation, tournaments over the
accepted bots, checking a published match)."""

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
        help="deals per ladder match, each dealt at every one of its tables (default: %(default)s)",
    )
    parser.add_argument(
        "--table-size",
        type=int,
        default=2,
        metavar="N",
        help="bots per ladder match, 2 to 6: N bots at N mirrored tables, seats rotated"
        " (default: %(default)s, heads-up)",
    )
    parser.add_argument(
        "--house-bots",
        default="",
        metavar="NAMES",
        help="built-in bots seated on the ladder as house bots, comma-separated"
        " (e.g. tag,equity,calling-station); house bots left out leave the ladder",
    )
    parser.add_argument(
        "--match-timeout",
        type=float,
        metavar="S",
        help="seconds a ladder match may take before it is cut and void"
        " (default: 600 plus 2 a table-deal)",
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
    parser.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds a connection has to send a request's head (default: %(default)s)",
    )
    parser.add_argument(
        "--body-timeout",
        type=float,
        default=120.0,
        metavar="S",
        help="seconds a request's body may take to arrive after its head (default: %(default)s)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=5.0,
        metavar="S",
        help="seconds a kept-alive connection may wait for its next request (default: %(default)s)",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=1000,
        metavar="N",
        help="connections open at once, in all (default: %(default)s; over it: 503)",
    )
    parser.add_argument(
        "--max-connections-per-client",
        type=int,
        default=50,
        metavar="N",
        help="connections open at once from one address (default: %(default)s; a trusted"
        " proxy's count in all only)",
    )


def settings_from(args: argparse.Namespace) -> ServerSettings:
    from dp_arena.server.house import parse_house_bots

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
        table_size=args.table_size,
        house_bots=parse_house_bots(args.house_bots),
        match_timeout=args.match_timeout,
        header_timeout=args.header_timeout,
        body_timeout=args.body_timeout,
        idle_timeout=args.idle_timeout,
        max_connections=args.max_connections,
        max_connections_per_client=args.max_connections_per_client,
    )


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from dp_arena.server.app import create_app
    from dp_arena.server.connections import (
        ConnectionGuard,
        guarded_protocol,
        raise_open_files,
        trusted_addresses,
    )
    from dp_arena.server.house import seat_house_bots

    try:
        settings = settings_from(args)
        # The schema and the house bots before the server listens: a refusal is said here.
        database = Database(settings.db_url, registry=settings.data.registry)
        settings.data.create()
        database.migrate()
        seat_house_bots(database, settings.house_bots)
        database.close()
        app = create_app(settings)
    except (ConfigError, DPArenaError) as error:
        print(f"dp-arena serve: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    # Every connection is a descriptor, and so are the match's pipes and the database.
    files = raise_open_files(settings.max_connections + 1024)
    guard = ConnectionGuard(
        header_timeout=settings.header_timeout,
        body_timeout=settings.body_timeout,
        max_connections=min(settings.max_connections, max(64, files - 256)),
        per_client=settings.max_connections_per_client,
        trusted=trusted_addresses(args.forwarded_allow_ips) if args.behind_proxy else (),
    )
    print(
        f"dp-arena serve: {database.display_url}, data in {settings.data.root},"
        f" http://{args.host}:{args.port}{args.root_path}/",
        file=sys.stderr,
        flush=True,
    )
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        http=guarded_protocol(guard),
        proxy_headers=args.behind_proxy,
        forwarded_allow_ips=args.forwarded_allow_ips if args.behind_proxy else None,
        root_path=args.root_path,
        log_level="info",
        access_log=False,
        server_header=False,
        timeout_keep_alive=max(1, round(settings.idle_timeout)),
        # A stop waits this long for answers being sent, then the workers are told: all
        # of it within 10 s (a match playing is cut and played again at the next start).
        timeout_graceful_shutdown=4,
    )
    uvicorn.Server(config).run()
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
    organiser = actions.add_parser(
        "organiser-token",
        help="print a new token of organiser NAME (made if new; its old token revoked):"
        " it signs in to the admin page, /admin",
    )
    organiser.add_argument("name", metavar="NAME")
    _db_argument(organiser)
    for action, about in (
        ("authors", "list the authors: bots, submissions, disabled or not"),
        ("bots", "list the bots: author, versions, which one is in the ladder"),
        ("pause-ladder", "start no new match until resume-ladder (one playing ends first)"),
        ("resume-ladder", "let the ladder start matches again"),
    ):
        _db_argument(actions.add_parser(action, help=about))
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
        _db_argument(moderated)
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
    database = Database(settings.db_url, registry=settings.data.registry)
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
