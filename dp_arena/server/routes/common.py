"""What the routes share: errors in the form the caller asked for, bearer-token and
browser-session authentication, CSRF tokens, and the page templates."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from dp_arena.server import crud
from dp_arena.server.models import Author
from dp_arena.server.tokens import new_secret, same_secret

__all__ = ["CSRF_COOKIE", "SESSION_COOKIE", "bearer_author", "error", "page", "session_author"]

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
SESSION_COOKIE = "dp_arena_session"
CSRF_COOKIE = "dp_arena_csrf"


@functools.cache
def templates() -> Environment:
    # Autoescaping everywhere: every value a template shows is escaped unless the
    # template says otherwise, and none of ours does for bot-provided text.
    environment = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["mbb"] = _mbb
    return environment


def _mbb(value: Any) -> str:
    if value is None:
        return "–"
    return f"{float(value):+.1f}"


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "application/json" in request.headers.get(
        "accept", ""
    )


def error(request: Request, status: int, reason: str, message: str, **headers: str) -> Response:
    if wants_json(request):
        return JSONResponse({"error": reason, "message": message}, status, headers=headers)
    return page(request, "error.html", {"status": status, "message": message}, status=status)


def url(request: Request, path: str) -> str:
    """A link to ``path`` of this server, behind whatever prefix a proxy mounts it at."""
    return str(request.scope.get("root_path", "")).rstrip("/") + path


def page(
    request: Request, template: str, context: dict[str, Any], *, status: int = 200
) -> HTMLResponse:
    author = session_author(request)
    server = request.app.state.server
    values = {
        "url": lambda path: url(request, path),
        "signed_in": None if author is None else author[0].name,
        "csrf": None if author is None else author[1],
        "title": server.settings.title,
        **context,
    }
    return HTMLResponse(templates().get_template(template).render(values), status)


def bearer_author(request: Request) -> Author | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    with request.app.state.server.database.session() as session:
        return crud.author_for_token(session, token.strip())


def session_author(request: Request) -> tuple[Author, str] | None:
    """The signed-in author of the browser and its session's CSRF token."""
    if "session_author" in request.scope:
        cached: tuple[Author, str] | None = request.scope["session_author"]
        return cached
    cookie = request.cookies.get(SESSION_COOKIE)
    found = None
    if cookie:
        with request.app.state.server.database.session() as session:
            found = crud.author_for_session(session, cookie)
    request.scope["session_author"] = found
    return found


def secure(request: Request) -> bool:
    return request.url.scheme == "https"


def csrf_cookie(request: Request) -> str:
    """The signed-out forms' CSRF value (a cookie it is compared with), made if missing."""
    return request.cookies.get(CSRF_COOKIE) or new_secret()


def form_csrf_ok(request: Request, sent: object) -> bool:
    """Whether a posted form carries the right CSRF token: the signed-in session's, or for
    a signed-out form the value of its cookie."""
    if not isinstance(sent, str) or not sent:
        return False
    author = session_author(request)
    if author is not None:
        return same_secret(sent, author[1])
    cookie = request.cookies.get(CSRF_COOKIE)
    return bool(cookie) and same_secret(sent, str(cookie))
