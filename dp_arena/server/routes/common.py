"""What the routes share: errors in the form the caller asked for, bearer-token and
browser-session authentication, CSRF tokens, and the page templates."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from jinja2 import Environment, FileSystemLoader, select_autoescape
from sqlalchemy.orm import Session
from starlette.convertors import Convertor
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from dp_arena.server import crud
from dp_arena.server.models import Author, Organiser
from dp_arena.server.tokens import new_secret, same_secret
from dp_arena.server.views import time_text

__all__ = [
    "CSRF_COOKIE",
    "SESSION_COOKIE",
    "IdConvertor",
    "QueryError",
    "bearer_author",
    "error",
    "page",
    "query_int",
    "session_author",
    "session_organiser",
]

Who = TypeVar("Who")

# The largest id a path may name: the databases' 64-bit integers. A longer number is no
# route (404), never an overflow in a query.
MAX_ID = 2**63 - 1


class IdConvertor(Convertor[int]):
    """``{id:id}`` in a route: 1 to 18 digits (below 2**63), else the route does not
    match and the answer is 404."""

    regex = "[0-9]{1,18}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(int(value))


class QueryError(ValueError):
    """A query parameter that is not what the route takes: answered 422."""


def query_int(request: Request, name: str, *, default: int | None, least: int = 0) -> int | None:
    """A query parameter as a whole number from ``least`` to 2**63 - 1 (``default`` when
    absent); :class:`QueryError` for anything else."""
    text = request.query_params.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit() and len(text) <= 19) or not (
        least <= int(text) <= MAX_ID
    ):
        raise QueryError(f"?{name}= takes a whole number from {least} to {MAX_ID}")
    return int(text)


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
    environment.filters["when"] = _when
    environment.filters["yesno"] = _yes_no
    environment.filters["count"] = _count
    return environment


def _mbb(value: Any) -> str:
    if value is None:
        return "–"
    return f"{float(value):+.1f}"


def _when(value: Any) -> str:
    """A stored time as a person reads it: ``2026-12-01 10:00:00 UTC``."""
    if not value:
        return "–"
    text = time_text(str(value)) or ""
    return text.replace("T", " ").removesuffix("Z") + " UTC"


def _yes_no(value: Any) -> str:
    if value is None:
        return "–"
    return "yes" if value else "no"


def _count(value: Any, noun: str, plural: str | None = None) -> str:
    """``1,200 deals``, ``1 deal``."""
    number = int(value or 0)
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


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
    organiser = session_organiser(request) if author is None else None
    server = request.app.state.server
    values = {
        "url": lambda path: url(request, path),
        "signed_in": None if author is None else author[0].name,
        "organiser": None if organiser is None else organiser[0].name,
        "csrf": author[1] if author is not None else None if organiser is None else organiser[1],
        "title": server.settings.title,
        **context,
    }
    return HTMLResponse(templates().get_template(template).render(values), status)


def bearer_author(request: Request) -> Author | None:
    """The author whose API token the request bears."""
    return _by_bearer(request, crud.author_for_token)


def bearer_organiser(request: Request) -> Organiser | None:
    """The organiser whose token the request bears."""
    return _by_bearer(request, crud.organiser_for_token)


def session_author(request: Request) -> tuple[Author, str] | None:
    """The signed-in author of the browser and its session's CSRF token."""
    return _by_session(request, "session_author", crud.author_for_session)


def session_organiser(request: Request) -> tuple[Organiser, str] | None:
    """The signed-in organiser of the browser and its session's CSRF token."""
    return _by_session(request, "session_organiser", crud.organiser_for_session)


def _by_bearer(request: Request, lookup: Callable[[Session, str], Who | None]) -> Who | None:
    """Who ``lookup`` finds by the request's ``Authorization: Bearer`` token, if any."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    with request.app.state.server.database.session() as session:
        return lookup(session, token.strip())


def _by_session(
    request: Request, key: str, lookup: Callable[[Session, str], Who | None]
) -> Who | None:
    """Who ``lookup`` finds by the browser's session cookie, asked once a request (kept
    in its scope under ``key``)."""
    if key in request.scope:
        cached: Who | None = request.scope[key]
        return cached
    cookie = request.cookies.get(SESSION_COOKIE)
    found = None
    if cookie:
        with request.app.state.server.database.session() as session:
            found = lookup(session, cookie)
    request.scope[key] = found
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
    signed_in = session_author(request) or session_organiser(request)
    if signed_in is not None:
        return same_secret(sent, signed_in[1])
    cookie = request.cookies.get(CSRF_COOKIE)
    return bool(cookie) and same_secret(sent, str(cookie))
