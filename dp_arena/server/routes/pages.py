"""The server's pages: the leaderboard, each bot, each submission, the matches (each with
its hand replay viewer), the tournaments, and an author's account (sign in with a token,
upload, withdraw). Forms carry a CSRF token; cookies are HttpOnly and SameSite=Strict."""

from __future__ import annotations

import mimetypes
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from dp_arena.errors import DPArenaError
from dp_arena.leaderboard.replay import VIEWER_BODY, hands_json, record_view, viewer_parts
from dp_arena.results import TableSessionResult
from dp_arena.server import crud, views
from dp_arena.server.app import server_of
from dp_arena.server.charts import score_chart
from dp_arena.server.routes.api import leaderboard_data
from dp_arena.server.routes.common import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    csrf_cookie,
    error,
    form_csrf_ok,
    page,
    secure,
    session_author,
    url,
)
from dp_arena.server.standings import match_rules
from dp_arena.server.uploads import UploadRefused, store_upload, suffix_for

__all__ = ["routes"]

STATIC = Path(__file__).resolve().parents[1] / "static"


def _summaries(session: Any, matches: Any) -> list[dict[str, Any]]:
    submissions = crud.submissions_by_id(
        session, sorted({m.first_id for m in matches} | {m.second_id for m in matches})
    )
    authors = crud.authors(session)
    return [views.match_summary(match, submissions, authors) for match in matches]


def home(request: Request) -> Response:
    board = leaderboard_data(request)
    with server_of(request).database.session() as session:
        matches = _summaries(session, crud.recent_matches(session, limit=10))
    return page(request, "leaderboard.html", {"board": board, "matches": matches})


def matches_page(request: Request) -> Response:
    try:
        before = int(request.query_params["before"]) if "before" in request.query_params else None
    except ValueError:
        before = None
    with server_of(request).database.session() as session:
        rows = crud.recent_matches(session, limit=50, before=before)
        matches = _summaries(session, rows)
    older = rows[-1].id if len(rows) == 50 else None
    return page(request, "matches.html", {"matches": matches, "older": older})


def _hands(data: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[tuple[int, int], int]]:
    """The viewer's hands of a match, and (table, deal) -> the hand's number (from 1)."""
    rules = match_rules(2, data["small_blind"], data["big_blind"], data["betting"], data["cap"])
    hands = []
    numbers: dict[tuple[int, int], int] = {}
    for table_data in data["tables"]:
        table = TableSessionResult.from_json(table_data)
        for record in table.deals:
            title = f"deal {record.deal + 1}, table {table.table + 1}"
            try:
                hands.append(record_view(record, rules, title=title))
            except (DPArenaError, ValueError):
                continue
            numbers[table.table, record.deal] = len(hands)
    return hands, numbers


def match_page(request: Request) -> Response:
    match_id = request.path_params["id"]
    with server_of(request).database.session() as session:
        match = crud.match(session, match_id)
        if match is None:
            return error(request, 404, "not_found", "no such match")
        submissions = crud.submissions_by_id(session, [match.first_id, match.second_id])
        data = views.match_json(match, submissions, crud.authors(session))
    hands, numbers = _hands(data) if data["status"] == crud.FINISHED else ([], {})
    for fault in data["faults"]:  # each fault links to its hand in the viewer
        fault["hand"] = numbers.get((fault.get("table"), fault.get("deal")))
    return page(
        request,
        "match.html",
        {
            "match": data,
            "viewer": VIEWER_BODY,
            "hands_json": hands_json(hands),
            "api_url": f"{request.base_url}api/matches/{match_id}",
        },
    )


def bot_page(request: Request) -> Response:
    name = request.path_params["name"]
    board = leaderboard_data(request)
    with server_of(request).database.session() as session:
        bot = crud.bot_named(session, name)
        if bot is None:
            return error(request, 404, "not_found", "no bot of that name")
        authors = crud.authors(session)
        rows = crud.submissions_of_bot(session, bot.id)
        versions = [views.submission_json(row, authors, report=False) for row in rows]
        current = next(
            (entry for entry in crud.current_entries(session) if entry.bot_id == bot.id), None
        )
        ids = [row.id for row in rows]
        matches = _summaries(session, crud.recent_matches(session, limit=20, submission_ids=ids))
        points = crud.points_of(session, [current.id]) if current is not None else []
    standing = None
    if current is not None:
        standing = next((line for line in board["bots"] if line["id"] == current.id), None)
    chart = score_chart(
        [
            (
                float(point.mbb_per_deal),
                None if point.ci_low is None else float(point.ci_low),
                None if point.ci_high is None else float(point.ci_high),
            )
            for point in points
        ]
    )
    return page(
        request,
        "bot.html",
        {
            "bot": {"name": bot.name, "author": authors.get(bot.author_id, "")},
            "current": None
            if current is None
            else {"ref": current.ref, "version": current.label, "id": current.id},
            "standing": standing,
            "versions": versions,
            "matches": matches,
            "chart": chart,
        },
    )


def submission_page(request: Request) -> Response:
    with server_of(request).database.session() as session:
        row = crud.submission(session, request.path_params["id"])
        if row is None:
            return error(request, 404, "not_found", "no such submission")
        data = views.submission_json(row, crud.authors(session))
        owner = row.author_id
    author = session_author(request)
    return page(
        request,
        "submission.html",
        {"row": data, "mine": author is not None and author[0].id == owner},
    )


def tournaments_page(request: Request) -> Response:
    with server_of(request).database.session() as session:
        rows = list(crud.tournaments(session))
    return page(request, "tournaments.html", {"rows": rows})


def tournament_file(request: Request) -> Response:
    with server_of(request).database.session() as session:
        row = crud.tournament(session, request.path_params["id"])
        folder = None if row is None or row.published_dir is None else Path(row.published_dir)
    if folder is None:
        return error(request, 404, "not_found", "no such published tournament")
    name = request.path_params.get("file") or "index.html"
    target = (folder / name).resolve()
    if not target.is_relative_to(folder.resolve()) or not target.is_file():
        return error(request, 404, "not_found", "no such file")
    # A published page brings its own content security policy (its inline style and
    # script by their hashes): it is served as it was written.
    headers = {
        "content-security-policy": "default-src 'none'; img-src data:; frame-ancestors 'none'"
    }
    if target.suffix == ".html":
        headers = {"content-security-policy": "frame-ancestors 'none'"}
    media = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    return FileResponse(target, media_type=media, headers=headers)


def static_file(request: Request) -> Response:
    name = request.path_params["file"]
    if name in ("replay.js", "replay.css"):
        style, script = viewer_parts()
        body, media = (script, "text/javascript") if name.endswith(".js") else (style, "text/css")
        return Response(body, media_type=media, headers={"cache-control": "max-age=3600"})
    if name != "site.css":
        return error(request, 404, "not_found", "no such file")
    return FileResponse(
        STATIC / name, media_type="text/css", headers={"cache-control": "max-age=3600"}
    )


# -- signing in and the author's own forms ------------------------------------------------


def _cookie(response: Response, request: Request, name: str, value: str, age: int) -> None:
    response.set_cookie(
        name,
        value,
        max_age=age,
        httponly=True,
        samesite="strict",
        secure=secure(request),
        path=str(request.scope.get("root_path", "")) or "/",
    )


def login_form(request: Request, problem: str | None = None, status: int = 200) -> Response:
    value = csrf_cookie(request)
    response = page(request, "login.html", {"form_csrf": value, "problem": problem}, status=status)
    _cookie(response, request, CSRF_COOKIE, value, 3600)
    return response


async def login(request: Request) -> Response:
    form = await request.form(max_files=0, max_fields=5)
    if not form_csrf_ok(request, form.get("csrf")):
        return error(request, 403, "csrf", "the form has expired; load it again")
    token = form.get("token")
    database = server_of(request).database

    def sign_in() -> str | None:
        if not isinstance(token, str):
            return None
        with database.session() as session:
            author = crud.author_for_token(session, token.strip())
            if author is None:
                return None
            cookie, _ = crud.open_web_session(session, author)
            return cookie

    cookie = await run_in_threadpool(sign_in)
    if cookie is None:
        return login_form(request, "That token is not valid.", status=401)
    response = RedirectResponse(url(request, "/account"), 303)
    _cookie(response, request, SESSION_COOKIE, cookie, 12 * 3600)
    return response


async def logout(request: Request) -> Response:
    form = await request.form(max_files=0, max_fields=5)
    if not form_csrf_ok(request, form.get("csrf")) or session_author(request) is None:
        return error(request, 403, "csrf", "the form has expired; load it again")
    cookie = request.cookies.get(SESSION_COOKIE, "")
    with server_of(request).database.session() as session:
        crud.close_web_session(session, cookie)
    response = RedirectResponse(url(request, "/"), 303)
    response.delete_cookie(SESSION_COOKIE, path=str(request.scope.get("root_path", "")) or "/")
    return response


def account(request: Request, problem: str | None = None, status: int = 200) -> Response:
    author = session_author(request)
    if author is None:
        return RedirectResponse(url(request, "/login"), 303)
    with server_of(request).database.session() as session:
        authors = crud.authors(session)
        rows = [
            views.submission_json(row, authors, report=False)
            for row in crud.submissions_of_author(session, author[0].id)
        ]
    return page(request, "account.html", {"rows": rows, "problem": problem}, status=status)


async def upload_form(request: Request) -> Response:
    author = session_author(request)
    if author is None:
        return error(request, 401, "unauthorised", "sign in first")
    server = server_of(request)
    limit = server.settings.max_upload_bytes
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit + 64 * 1024:
        return account(request, f"An upload is at most {limit} bytes.", status=413)
    form = await request.form(max_files=1, max_fields=5, max_part_size=limit + 1)
    if not form_csrf_ok(request, form.get("csrf")):
        return error(request, 403, "csrf", "the form has expired; load it again")
    archive = form.get("archive")
    if not isinstance(archive, UploadFile):
        return account(request, "Choose a file to upload.", status=400)
    filename = (archive.filename or "").lower()
    content_type = (
        "application/zip"
        if filename.endswith(".zip")
        else "application/gzip"
        if filename.endswith((".tar.gz", ".tgz"))
        else archive.content_type or ""
    )
    body = await archive.read(limit + 1)
    try:
        suffix = suffix_for(content_type)
        if len(body) > limit:
            raise UploadRefused(413, "too_large", f"an upload is at most {limit} bytes")
        submission_id = await run_in_threadpool(
            store_upload, server.database, server.settings, author[0], body, suffix
        )
    except UploadRefused as refusal:
        return account(request, refusal.message, status=refusal.status)
    server.checker.wake()
    return RedirectResponse(url(request, f"/submissions/{submission_id}"), 303)


async def withdraw_form(request: Request) -> Response:
    form = await request.form(max_files=0, max_fields=5)
    author = session_author(request)
    if author is None or not form_csrf_ok(request, form.get("csrf")):
        return error(request, 403, "csrf", "the form has expired; load it again")
    submission_id = request.path_params["id"]
    with server_of(request).database.session() as session:
        row = crud.submission(session, submission_id)
        if row is None:
            return error(request, 404, "not_found", "no such submission")
        if row.author_id != author[0].id:
            return error(request, 403, "forbidden", "only its author may withdraw a bot")
        crud.withdraw(session, row)
    ladder = server_of(request).ladder
    if ladder is not None:
        ladder.wake()
    return RedirectResponse(url(request, f"/submissions/{submission_id}"), 303)


def routes() -> list[BaseRoute]:
    return [
        Route("/", home),
        Route("/matches", matches_page),
        Route("/matches/{id:int}", match_page),
        Route("/bots/{name:str}", bot_page),
        Route("/submissions/{id:int}", submission_page),
        Route("/submissions/{id:int}/withdraw", withdraw_form, methods=["POST"]),
        Route("/tournaments", tournaments_page),
        Route("/tournaments/{id:int}/", tournament_file),
        Route("/tournaments/{id:int}/{file:path}", tournament_file),
        Route("/static/{file:str}", static_file),
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/account", account, methods=["GET"]),
        Route("/account/upload", upload_form, methods=["POST"]),
    ]
