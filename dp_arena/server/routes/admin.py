"""The organisers' page, ``/admin``: the ladder (pause, resume), every author (disable,
enable) and every bot (withdraw), and the moderation log. Behind an organiser's token:
signed in from ``/login`` (its forms carry the session's CSRF token), or sent as
``Authorization: Bearer TOKEN`` (then the answers are JSON: ``GET /api/admin`` and the
same ``POST`` routes). Each action calls the function ``dp-arena server`` calls
(:mod:`dp_arena.server.moderation`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from dp_arena.errors import ConfigError
from dp_arena.server import crud, moderation
from dp_arena.server.app import server_of
from dp_arena.server.db import Database
from dp_arena.server.routes.common import (
    bearer_organiser,
    error,
    form_csrf_ok,
    page,
    session_organiser,
    url,
)

__all__ = ["routes"]


def _overview(database: Database) -> dict[str, Any]:
    with database.session() as session:
        log = [
            {
                "at": row.created_at,
                "actor": row.actor,
                "action": row.action,
                "target": row.target,
            }
            for row in crud.moderation_log(session)
        ]
        return {
            "ladder": moderation.ladder_state(session),
            "authors": moderation.authors_table(session),
            "bots": moderation.bots_table(session),
            "log": log,
        }


def admin_page(request: Request) -> Response:
    if session_organiser(request) is None:
        return RedirectResponse(url(request, "/login"), 303)
    data = _overview(server_of(request).database)
    message = request.query_params.get("done")
    return page(request, "admin.html", {"admin": data, "done": message})


def admin_json(request: Request) -> Response:
    if bearer_organiser(request) is None:
        return error(request, 401, "unauthorised", "send an organiser's token")
    return JSONResponse(_overview(server_of(request).database))


async def _act(request: Request, action: Callable[[Database, str], str]) -> Response:
    """Run ``action(database, actor)`` for a signed-in organiser (a form with its CSRF
    token: back to the page) or one sending its token (JSON)."""
    organiser = await run_in_threadpool(bearer_organiser, request)
    as_json = organiser is not None
    if organiser is None:
        form = await request.form(max_files=0, max_fields=5)
        signed_in = session_organiser(request)
        if signed_in is None:
            return error(request, 401, "unauthorised", "sign in with an organiser's token")
        if not form_csrf_ok(request, form.get("csrf")):
            return error(request, 403, "csrf", "the form has expired; load it again")
        organiser = signed_in[0]
    database = server_of(request).database
    try:
        message = await run_in_threadpool(action, database, f"admin:{organiser.name}")
    except ConfigError as problem:
        return error(request, 404, "not_found", str(problem))
    ladder = server_of(request).ladder
    if ladder is not None:
        ladder.wake()
    if as_json:
        return JSONResponse({"ok": True, "message": message})
    from urllib.parse import quote

    return RedirectResponse(url(request, f"/admin?done={quote(message)}"), 303)


async def disable_author(request: Request) -> Response:
    name = str(request.path_params["name"])
    return await _act(
        request,
        lambda database, actor: moderation.set_author_disabled(database, name, True, actor=actor),
    )


async def enable_author(request: Request) -> Response:
    name = str(request.path_params["name"])
    return await _act(
        request,
        lambda database, actor: moderation.set_author_disabled(database, name, False, actor=actor),
    )


async def withdraw_bot(request: Request) -> Response:
    name = str(request.path_params["name"])
    return await _act(
        request, lambda database, actor: moderation.withdraw_bot(database, name, actor=actor)
    )


async def pause_ladder(request: Request) -> Response:
    return await _act(
        request, lambda database, actor: moderation.set_ladder_paused(database, True, actor=actor)
    )


async def resume_ladder(request: Request) -> Response:
    return await _act(
        request, lambda database, actor: moderation.set_ladder_paused(database, False, actor=actor)
    )


def routes() -> list[BaseRoute]:
    post = ["POST"]
    return [
        Route("/admin", admin_page),
        Route("/api/admin", admin_json),
        Route("/admin/authors/{name:str}/disable", disable_author, methods=post),
        Route("/admin/authors/{name:str}/enable", enable_author, methods=post),
        Route("/admin/bots/{name:str}/withdraw", withdraw_bot, methods=post),
        Route("/admin/ladder/pause", pause_ladder, methods=post),
        Route("/admin/ladder/resume", resume_ladder, methods=post),
    ]
