"""Signing in (an author's token, or an organiser's: then to the admin page), signing out,
and an author's own forms: the account page (their submissions, an upload) and
withdrawing a version. Forms carry a CSRF token; cookies are HttpOnly and
SameSite=Strict."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from dp_arena.server import crud, views
from dp_arena.server.app import server_of
from dp_arena.server.models import Author
from dp_arena.server.routes.common import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    csrf_cookie,
    error,
    form_csrf_ok,
    page,
    secure,
    session_author,
    session_organiser,
    url,
)
from dp_arena.server.uploads import UploadRefused, store_upload, suffix_for

__all__ = ["routes"]


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

    def sign_in() -> tuple[str, str] | None:
        """The session's cookie and where it goes: an author's account, or an
        organiser's admin page."""
        if not isinstance(token, str):
            return None
        with database.session() as session:
            who = crud.author_for_token(session, token.strip()) or crud.organiser_for_token(
                session, token.strip()
            )
            if who is None:
                return None
            cookie, _ = crud.open_web_session(session, who)
            return cookie, "/account" if isinstance(who, Author) else "/admin"

    signed = await run_in_threadpool(sign_in)
    if signed is None:
        return login_form(request, "That token is not valid.", status=401)
    cookie, target = signed
    response = RedirectResponse(url(request, target), 303)
    _cookie(response, request, SESSION_COOKIE, cookie, 12 * 3600)
    return response


async def logout(request: Request) -> Response:
    form = await request.form(max_files=0, max_fields=5)
    signed_in = session_author(request) or session_organiser(request)
    if not form_csrf_ok(request, form.get("csrf")) or signed_in is None:
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
        waiting = crud.checking_count(session, author[0])
    settings = server_of(request).settings
    return page(
        request,
        "account.html",
        {
            "rows": rows,
            "problem": problem,
            "waiting": waiting,
            "max_checking": settings.max_checking,
            "uploads_per_hour": settings.uploads_per_hour,
        },
        status=status,
    )


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
        return account(request, refusal.message + ".", status=refusal.status)
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
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/account", account, methods=["GET"]),
        Route("/account/upload", upload_form, methods=["POST"]),
        Route("/submissions/{id:id}/withdraw", withdraw_form, methods=["POST"]),
    ]
