"""The JSON API: bots (upload, status, withdraw), the leaderboard and the matches."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from dp_arena.server import crud, views
from dp_arena.server.app import server_of
from dp_arena.server.routes.common import bearer_author, error, url
from dp_arena.server.standings import rank_lines, unscored_line
from dp_arena.server.uploads import (
    UploadRefused,
    read_limited,
    refuse_early,
    store_upload,
    suffix_for,
)

__all__ = ["routes"]


def _unauthorised(request: Request) -> Response:
    """401, in words for what was sent: no token, or one this server does not know."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        message = (
            "this server knows no such token: it may be mistyped, replaced by a newer one"
            " (dp-arena server new-token), or another server's; ask the organiser for yours"
        )
        challenge = 'Bearer realm="dp-arena", error="invalid_token"'
    else:
        message = "send your token: Authorization: Bearer TOKEN"
        challenge = 'Bearer realm="dp-arena"'
    return error(request, 401, "unauthorised", message, **{"WWW-Authenticate": challenge})


def refused(request: Request, refusal: UploadRefused) -> Response:
    headers = {} if refusal.retry_after is None else {"Retry-After": str(refusal.retry_after)}
    return error(request, refusal.status, refusal.reason, refusal.message, **headers)


async def post_bot(request: Request) -> Response:
    server = server_of(request)
    author = await run_in_threadpool(bearer_author, request)
    if author is None:
        return _unauthorised(request)
    try:
        suffix = suffix_for(request.headers.get("content-type", ""))
        refuse_early(server.settings, request.headers.get("content-length"))
        body = await read_limited(request.stream(), server.settings)
        submission_id = await run_in_threadpool(
            store_upload, server.database, server.settings, author, body, suffix
        )
    except UploadRefused as refusal:
        return refused(request, refusal)
    server.checker.wake()
    return JSONResponse(
        {
            "id": submission_id,
            "status": crud.CHECKING,
            "url": url(request, f"/api/bots/{submission_id}"),
            "page": url(request, f"/submissions/{submission_id}"),
        },
        202,
        headers={"Location": url(request, f"/api/bots/{submission_id}")},
    )


def _id(request: Request, name: str = "id") -> int | None:
    value = request.path_params.get(name)
    return value if isinstance(value, int) else None


def get_bot(request: Request) -> Response:
    with server_of(request).database.session() as session:
        row = crud.submission(session, _id(request) or 0)
        if row is None:
            return error(request, 404, "not_found", "no such bot submission")
        return JSONResponse(views.submission_json(row, crud.authors(session)))


def delete_bot(request: Request) -> Response:
    author = bearer_author(request)
    if author is None:
        return _unauthorised(request)
    with server_of(request).database.session() as session:
        row = crud.submission(session, _id(request) or 0)
        if row is None:
            return error(request, 404, "not_found", "no such bot submission")
        if row.author_id != author.id:
            return error(request, 403, "forbidden", "only its author may withdraw a bot")
        crud.withdraw(session, row)
        data = views.submission_json(row, crud.authors(session), report=False)
    ladder = server_of(request).ladder
    if ladder is not None:
        ladder.wake()
    return JSONResponse(data)


def list_bots(request: Request) -> Response:
    with server_of(request).database.session() as session:
        authors = crud.authors(session)
        entries = [
            views.submission_json(row, authors, report=False)
            for row in crud.current_entries(session)
        ]
    return JSONResponse({"bots": entries})


def leaderboard_data(request: Request) -> dict[str, Any]:
    """The latest standings, over the ladder's entries as they are now: a bot accepted
    since shows with no score yet, a withdrawn one is gone."""
    with server_of(request).database.session() as session:
        data = crud.latest_snapshot(session) or {
            "bots": [],
            "matches": 0,
            "updated": None,
            "adjusted": None,
        }
        authors = crud.authors(session)
        entries = crud.current_entries(session)
    ranked = {line["id"]: line for line in data["bots"]}
    lines = [
        ranked.get(entry.id) or unscored_line(views.entry_json(entry, authors)) for entry in entries
    ]
    rank_lines(lines)
    return {**data, "bots": lines}


def get_leaderboard(request: Request) -> Response:
    return JSONResponse(leaderboard_data(request))


def _limit(request: Request, default: int = 50, most: int = 200) -> tuple[int, int | None]:
    try:
        limit = min(most, max(1, int(request.query_params.get("limit", default))))
        before_text = request.query_params.get("before")
        before = None if before_text is None else int(before_text)
    except ValueError:
        return default, None
    return limit, before


def list_matches(request: Request) -> Response:
    limit, before = _limit(request)
    with server_of(request).database.session() as session:
        matches = crud.recent_matches(session, limit=limit, before=before)
        submissions = crud.submissions_by_id(
            session, sorted({m.first_id for m in matches} | {m.second_id for m in matches})
        )
        authors = crud.authors(session)
        data = [views.match_summary(match, submissions, authors) for match in matches]
    return JSONResponse({"matches": data})


def get_match(request: Request) -> Response:
    with server_of(request).database.session() as session:
        match = crud.match(session, _id(request) or 0)
        if match is None:
            return error(request, 404, "not_found", "no such match")
        submissions = crud.submissions_by_id(session, [match.first_id, match.second_id])
        data = views.match_json(match, submissions, crud.authors(session))
    return JSONResponse(data)


def health(request: Request) -> Response:
    server = server_of(request)
    with server.database.session() as session:
        waiting = crud.oldest_checking(session)
    return JSONResponse(
        {
            "ok": True,
            "revision": server.database.revision(),
            "checking": waiting is not None,
            "ladder": server.ladder is not None,
        }
    )


def routes() -> list[BaseRoute]:
    return [
        Route("/api/health", health),
        Route("/api/bots", post_bot, methods=["POST"]),
        Route("/api/bots", list_bots, methods=["GET"]),
        Route("/api/bots/{id:int}", get_bot, methods=["GET"]),
        Route("/api/bots/{id:int}", delete_bot, methods=["DELETE"]),
        Route("/api/leaderboard", get_leaderboard),
        Route("/api/matches", list_matches),
        Route("/api/matches/{id:int}", get_match),
    ]
