"""The JSON API: bots (upload, status, withdraw), the leaderboard, the matches (with their
hand histories, and each bot's log for its author) and the authors."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from dp_arena.server import crud, views
from dp_arena.server.app import server_of
from dp_arena.server.routes.common import (
    QueryError,
    bearer_author,
    error,
    query_int,
    session_author,
    url,
)
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


def _id(request: Request, name: str = "id") -> int:
    value = request.path_params.get(name)
    return value if isinstance(value, int) else 0


def get_bot(request: Request) -> Response:
    with server_of(request).database.session() as session:
        row = crud.submission(session, _id(request))
        if row is None:
            return error(request, 404, "not_found", "no such bot submission")
        return JSONResponse(
            views.submission_json(row, crud.authors(session), house=crud.house_ids(session))
        )


def delete_bot(request: Request) -> Response:
    author = bearer_author(request)
    if author is None:
        return _unauthorised(request)
    with server_of(request).database.session() as session:
        row = crud.submission(session, _id(request))
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
        authors, house = crud.authors(session), crud.house_ids(session)
        entries = [
            views.submission_json(row, authors, report=False, house=house)
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
        authors, house = crud.authors(session), crud.house_ids(session)
        entries = crud.current_entries(session)
        paused = crud.ladder_paused(session)
    ranked = {line["id"]: line for line in data["bots"]}
    lines = [
        ranked.get(entry.id) or unscored_line(views.entry_json(entry, authors, house))
        for entry in entries
    ]
    for line in lines:  # a snapshot from before house bots existed
        line["house"] = line.get("house", False)
    rank_lines(lines)
    settings = server_of(request).settings
    return {
        **data,
        "bots": lines,
        "updated": views.time_text(data.get("updated")),
        "table_size": settings.table_size,
        "deals_per_match": settings.ladder_deals,
        "paused": paused,
    }


def get_leaderboard(request: Request) -> Response:
    return JSONResponse(leaderboard_data(request))


def list_matches(request: Request) -> Response:
    try:
        limit = min(200, query_int(request, "limit", default=50, least=1) or 50)
        matches, _ = recent_match_summaries(request, limit)
    except QueryError as problem:
        return error(request, 422, "bad_query", str(problem))
    return JSONResponse({"matches": matches})


def recent_match_summaries(request: Request, limit: int) -> tuple[list[dict[str, Any]], int | None]:
    """The summaries of the ``limit`` newest matches before the query's ``before`` (an
    id; none: the newest of all), and the id of the last when there may be older ones
    (``None``: there are not). A bad ``before`` is a :class:`QueryError`."""
    before = query_int(request, "before", default=None)
    with server_of(request).database.session() as session:
        rows = crud.recent_matches(session, limit=limit, before=before)
        summaries = views.match_summaries(session, rows)
    return summaries, rows[-1].id if len(rows) == limit else None


def match_data(request: Request, match_id: int) -> dict[str, Any] | None:
    """A match as ``GET /api/matches/{id}`` gives it (``None``: no such match); a finished
    one is kept for the next request (:class:`~dp_arena.server.cache.FinishedMatches`)."""
    server = server_of(request)
    with server.database.session() as session:
        status = crud.match_status(session, match_id)
        if status is None:
            return None

        def read() -> dict[str, Any]:
            match = crud.match(session, match_id)
            assert match is not None
            return views.match_data(session, match)

        if status != crud.FINISHED:
            return read()
        data: dict[str, Any] = server.finished.get(("match", match_id), read)
        return data


def get_match(request: Request) -> Response:
    data = match_data(request, _id(request))
    if data is None:
        return error(request, 404, "not_found", "no such match")
    return JSONResponse(data)


def _finished_match(request: Request) -> dict[str, Any] | Response:
    """The data of the finished match the path names, or the answer saying why not."""
    data = match_data(request, _id(request))
    if data is None:
        return error(request, 404, "not_found", "no such match")
    if data["status"] != crud.FINISHED:
        return error(
            request,
            409,
            "not_finished",
            f"match {data['id']} is {data['status']}: its hands and logs are published when it"
            " is over",
        )
    return data


def match_hands(request: Request) -> Response:
    """The match's hand histories as one PHH file (``.phhs``): every deal at every table,
    deal by deal; ``?table=N`` (from 1) for one table's."""
    from dp_arena.server.matches import match_histories

    found = _finished_match(request)
    if isinstance(found, Response):
        return found
    try:
        table = query_int(request, "table", default=None, least=1)
    except QueryError as problem:
        return error(request, 422, "bad_query", str(problem))
    if table is not None and table > len(found["tables"]):
        return error(request, 404, "not_found", f"match {found['id']} has no table {table}")
    text = server_of(request).finished.get(
        ("hands", found["id"], table),
        lambda: match_histories(found, None if table is None else table - 1),
    )
    name = f"match-{found['id']}" + ("" if table is None else f"-table-{table}") + ".phhs"
    return PlainTextResponse(
        text,
        media_type="application/toml",
        headers={"content-disposition": f'inline; filename="{name}"'},
    )


def match_log(request: Request) -> Response:
    """A bot's stderr in a finished match, every table's (its author only: a bearer token,
    or the author's signed-in browser)."""
    author = bearer_author(request)
    if author is None:
        signed_in = session_author(request)
        author = None if signed_in is None else signed_in[0]
    if author is None:
        return _unauthorised(request)
    found = _finished_match(request)
    if isinstance(found, Response):
        return found
    wanted = str(request.path_params["bot"])
    bot = next(
        (bot for bot in found["bots"] if wanted in (bot["ref"], bot["name"])),
        None,
    )
    if bot is None:
        return error(request, 404, "not_found", f"no bot {wanted!r} played match {found['id']}")
    if bot["author"] != author.name or bot["house"]:
        return error(request, 403, "forbidden", "only its author may read a bot's log")
    text = _log_text(server_of(request).settings.data.match_logs(found["id"]), str(bot["ref"]))
    return PlainTextResponse(text)


def _log_text(folder: Any, ref: str) -> str:
    """The logs of ``ref``'s seats (one per table), each under a heading."""
    from dp_arena.server.matches import log_files

    parts = []
    for table, path in log_files(folder, ref):
        body = "" if path is None else path.read_text(encoding="utf-8", errors="replace")
        parts.append(f"== {ref}, table {table} ==\n{body or '(nothing written)'}\n")
    return "".join(parts) or f"no log of {ref} was kept for this match\n"


def get_author(request: Request) -> Response:
    from dp_arena.server.routes.pages import author_data

    found = author_data(request, str(request.path_params["name"]))
    if found is None:
        return error(request, 404, "not_found", "no author of that name")
    return JSONResponse(found)


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
        Route("/api/bots/{id:id}", get_bot, methods=["GET"]),
        Route("/api/bots/{id:id}", delete_bot, methods=["DELETE"]),
        Route("/api/leaderboard", get_leaderboard),
        Route("/api/matches", list_matches),
        Route("/api/matches/{id:id}", get_match),
        Route("/api/matches/{id:id}/hands", match_hands),
        Route("/api/matches/{id:id}/logs/{bot:str}", match_log),
        Route("/api/authors/{name:str}", get_author),
    ]
