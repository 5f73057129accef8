"""The ASGI application: routes over the core, the workers that check uploads and play
the ladder, the limits per client address, and the headers every answer carries.

:func:`create_app` builds a Starlette application for one database and data folder.
Its lifespan migrates the database, then starts the checker and the ladder threads
(:mod:`dp_arena.server.checks`, :mod:`dp_arena.server.ladder`) and stops them at the end.
The routes (:mod:`dp_arena.server.routes`) only read and write through
:mod:`dp_arena.server.crud` and call the functions the command line calls.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dp_arena.server.cache import FinishedMatches
from dp_arena.server.checks import Checker
from dp_arena.server.db import Database
from dp_arena.server.house import seat_house_bots
from dp_arena.server.ladder import Ladder
from dp_arena.server.limits import RateLimit, Rates
from dp_arena.server.settings import ServerSettings

__all__ = ["Server", "create_app", "server_of"]

log = logging.getLogger("dp_arena.server")

# Pages take their style sheets and scripts from the server itself and nothing from
# anywhere else; no page may be framed (clickjacking), and forms post only back here.
PAGE_POLICY = (
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:;"
    " form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)


@dataclass
class Server:
    """What the routes share: the settings, the database and the workers."""

    settings: ServerSettings
    database: Database
    checker: Checker
    ladder: Ladder | None
    finished: FinishedMatches = field(default_factory=FinishedMatches)


def server_of(request: Request) -> Server:
    server: Server = request.app.state.server
    return server


class SecurityHeaders:
    """Headers on every answer: no sniffing, no framing, no referrer to other sites, and
    the pages' content security policy (a published tournament page brings its own)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                extra = [
                    (b"x-content-type-options", b"nosniff"),
                    (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"same-origin"),
                    (b"cross-origin-opener-policy", b"same-origin"),
                ]
                if b"content-security-policy" not in names:
                    extra.append((b"content-security-policy", PAGE_POLICY.encode()))
                if b"cache-control" not in names:
                    extra.append((b"cache-control", b"no-store"))
                message["headers"] = headers + [item for item in extra if item[0] not in names]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(settings: ServerSettings, *, workers: bool = True) -> Starlette:
    """The server's application; ``workers=False`` leaves the checker and the ladder off
    (for tests of the routes alone)."""
    from dp_arena.server.routes import routes

    database = Database(settings.db_url, registry=settings.data.registry)
    data = settings.data
    ladder = Ladder(database, settings) if settings.ladder and workers else None
    checker = Checker(
        database,
        data,
        states=settings.check_states,
        betting=settings.betting,
        on_accepted=None if ladder is None else ladder.wake,
    )
    server = Server(settings, database, checker, ladder)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        data.create()
        database.migrate()
        house = seat_house_bots(database, settings.house_bots)
        if house:
            log.info("house bots in the ladder: %s", ", ".join(house))
        if workers:
            checker.start()
        if ladder is not None:
            ladder.start()
        log.info("serving %s with data in %s", database.display_url, data.root)
        try:
            yield
        finally:
            # Both told at once: a match playing is cut (and played again at the next
            # start), a check cut short runs again; neither is waited for long.
            checker.request_stop()
            if ladder is not None:
                ladder.request_stop()
            checker.join()
            if ladder is not None:
                ladder.join()
            database.close()

    rates = Rates(settings.requests_per_minute, settings.writes_per_minute)
    app = Starlette(
        routes=routes(),
        # The limits inside the headers: a refusal carries them too.
        middleware=[Middleware(SecurityHeaders), Middleware(RateLimit, rates, _rate_limited)],
        lifespan=lifespan,
        exception_handlers={404: _not_found, 405: _not_allowed},
    )
    app.state.server = server
    return app


def _rate_limited(request: Request, wait: int) -> Response:
    """The answer to a client over its address's limit; nothing is read for it (no
    session, no database)."""
    from dp_arena.server.routes.common import wants_json

    message = f"too many requests from your address; try again in {wait} s"
    headers = {"retry-after": str(wait)}
    if wants_json(request):
        return JSONResponse({"error": "rate_limited", "message": message}, 429, headers=headers)
    return PlainTextResponse(message + "\n", 429, headers=headers)


async def _not_found(request: Request, exc: Exception) -> Response:
    from dp_arena.server.routes.common import error

    return error(request, 404, "not_found", "nothing here")


async def _not_allowed(request: Request, exc: Exception) -> Response:
    from dp_arena.server.routes.common import error

    return error(request, 405, "method_not_allowed", "that method is not allowed here")
