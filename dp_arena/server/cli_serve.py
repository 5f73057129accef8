"""``dp-arena serve``: the server run, with its settings from the command line; and the
database options (``--db``, ``--data``) every server command takes."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
from pathlib import Path

from dp_arena.commands import arguments
from dp_arena.errors import ConfigError, DPArenaError
from dp_arena.server.db import DEFAULT_URL, Database
from dp_arena.server.settings import ServerSettings

__all__ = ["add_serve_arguments", "db_arguments", "open_database", "run_serve", "settings_from"]


def db_arguments(parser: argparse.ArgumentParser) -> None:
    """``--db`` and ``--data``: the server's database and its files."""
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
    db_arguments(parser)
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
    arguments.add_betting_argument(parser, "the ladder's betting")
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
    """The settings of ``dp-arena serve``'s options: each option named as a setting sets
    it, as given; ``--db``, ``--data``, ``--no-ladder`` and ``--house-bots`` are read."""
    from dp_arena.server.house import parse_house_bots

    given = vars(args)
    return ServerSettings(
        **{
            setting.name: given[setting.name]
            for setting in dataclasses.fields(ServerSettings)
            if setting.name in given and setting.name != "house_bots"
        },
        db_url=args.db,
        data_dir=None if args.data is None else args.data.absolute(),
        ladder=not args.no_ladder,
        house_bots=parse_house_bots(args.house_bots),
    )


def open_database(settings: ServerSettings) -> Database:
    """The server's database, its data folder made and its schema brought up to date."""
    database = Database(settings.db_url, registry=settings.data.registry)
    settings.data.create()
    database.migrate()
    return database


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
        database = open_database(settings)
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
