"""The server's pages: the leaderboard, each bot, each author, each submission, the
matches (each with its duplicate hand viewer), the tournaments. Signing in and an
author's own forms are in :mod:`.account`, the organisers' page in :mod:`.admin`."""

from __future__ import annotations

import mimetypes
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from dp_arena.errors import DPArenaError
from dp_arena.leaderboard.replay import (
    VIEWER_BODY,
    deal_view,
    hands_json,
    record_view,
    viewer_parts,
)
from dp_arena.results import TableSessionResult
from dp_arena.server import crud, views
from dp_arena.server.app import server_of
from dp_arena.server.charts import score_chart
from dp_arena.server.routes.api import leaderboard_data, match_data, recent_match_summaries
from dp_arena.server.routes.common import (
    QueryError,
    error,
    page,
    session_author,
)
from dp_arena.server.standings import match_rules
from dp_arena.server.versions import version_of

__all__ = ["author_data", "routes"]

STATIC = Path(__file__).resolve().parents[1] / "static"
PAGE_MATCHES = 50


def home(request: Request) -> Response:
    board = leaderboard_data(request)
    with server_of(request).database.session() as session:
        matches = views.match_summaries(session, crud.recent_matches(session, limit=10))
    return page(request, "leaderboard.html", {"board": board, "matches": matches})


def matches_page(request: Request) -> Response:
    try:
        matches, older = recent_match_summaries(request, PAGE_MATCHES)
    except QueryError as problem:
        return error(request, 422, "bad_query", str(problem))
    return page(request, "matches.html", {"matches": matches, "older": older})


def _deals(data: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[int, int]]:
    """The viewer's deals of a match (each at all its tables), and deal (from 0) -> the
    deal's number in the viewer (from 1)."""
    players = len(data["bots"])
    rules = match_rules(
        players, data["small_blind"], data["big_blind"], data["betting"], data["cap"]
    )
    tables = [TableSessionResult.from_json(table) for table in data["tables"]]
    deals = []
    numbers: dict[int, int] = {}
    for deal in range(data["deals"]):
        hands = []
        for table in tables:
            if deal >= len(table.deals):
                continue
            try:
                hands.append(
                    record_view(table.deals[deal], rules, title=f"table {table.table + 1}")
                )
            except (DPArenaError, ValueError):
                continue
        if hands:
            deals.append(deal_view(f"deal {deal + 1}", hands))
            numbers[deal] = len(deals)
    return deals, numbers


def match_page(request: Request) -> Response:
    match_id = request.path_params["id"]
    found = match_data(request, match_id)
    if found is None:
        return error(request, 404, "not_found", "no such match")
    data = {**found, "faults": [dict(fault) for fault in found["faults"]]}  # marked below
    deals_json, numbers = "[]", {}
    if data["status"] == crud.FINISHED:

        def viewer() -> tuple[str, dict[int, int]]:
            deals, numbers = _deals(found)
            return hands_json(deals), numbers

        deals_json, numbers = server_of(request).finished.get(("viewer", match_id), viewer)
    for fault in data["faults"]:  # each fault links to its deal in the viewer
        deal = fault.get("deal_index")
        fault["hand"] = None if deal is None else numbers.get(deal)
    author = session_author(request)
    mine = (
        []
        if author is None
        else [bot for bot in data["bots"] if bot["author"] == author[0].name and not bot["house"]]
    )
    return page(
        request,
        "match.html",
        {
            "match": data,
            "mine": mine,
            "viewer": VIEWER_BODY,
            "hands_json": deals_json,
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
        authors, house = crud.authors(session), crud.house_ids(session)
        rows = crud.submissions_of_bot(session, bot.id)
        versions = [views.submission_json(row, authors, report=False, house=house) for row in rows]
        current = next(
            (entry for entry in crud.current_entries(session) if entry.bot_id == bot.id), None
        )
        ids = [row.id for row in rows]
        matches = views.match_summaries(
            session, crud.recent_matches(session, limit=20, submission_ids=ids)
        )
        points = crud.points_of(session, [current.id]) if current is not None else []
    version = None if current is None else version_of(current)
    current_version = None if version is None else version.label
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
            "bot": {
                "name": bot.name,
                "author": authors.get(bot.author_id, ""),
                "house": bot.author_id in house,
            },
            "current": None
            if current is None
            else {"ref": current.ref, "version": current_version, "id": current.id},
            "standing": standing,
            "versions": versions,
            "matches": matches,
            "chart": chart,
        },
    )


def author_data(request: Request, name: str) -> dict[str, Any] | None:
    """An author's bots (each with its place in the ladder) and recent matches, as
    ``GET /api/authors/{name}`` gives them; ``None`` for no such author."""
    board = leaderboard_data(request)
    lines = {line["name"]: line for line in board["bots"]}
    with server_of(request).database.session() as session:
        author = crud.author_named(session, name)
        if author is None:
            return None
        bots = []
        ids: list[int] = []
        for bot in crud.bots_of(session, author.id):
            rows = crud.submissions_of_bot(session, bot.id)
            ids += [row.id for row in rows]
            versions = [row for row in rows if row.version is not None]
            line = lines.get(bot.name)
            bots.append(
                {
                    "name": bot.name,
                    "versions": len(versions),
                    "newest": versions[0].ref if versions else None,
                    "in_ladder": None if line is None else line["ref"],
                    "rank": None if line is None else line["rank"],
                    "mbb_per_deal": None if line is None else line["mbb_per_deal"],
                    "ci95": None if line is None else line["ci95"],
                    "deals": 0 if line is None else line["deals"],
                }
            )
        matches = views.match_summaries(
            session, crud.recent_matches(session, limit=20, submission_ids=ids)
        )
        return {
            "name": author.name,
            "house": author.house,
            "since": views.time_text(author.created_at),
            "disabled": author.disabled_at is not None,
            "bots": bots,
            "matches": matches,
        }


def author_page(request: Request) -> Response:
    found = author_data(request, str(request.path_params["name"]))
    if found is None:
        return error(request, 404, "not_found", "no author of that name")
    signed_in = session_author(request)
    mine = signed_in is not None and signed_in[0].name == found["name"]
    return page(
        request, "author.html", {"author": found, "matches": found["matches"], "mine": mine}
    )


def submission_page(request: Request) -> Response:
    with server_of(request).database.session() as session:
        row = crud.submission(session, request.path_params["id"])
        if row is None:
            return error(request, 404, "not_found", "no such submission")
        data = views.submission_json(row, crud.authors(session), house=crud.house_ids(session))
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


def routes() -> list[BaseRoute]:
    return [
        Route("/", home),
        Route("/matches", matches_page),
        Route("/matches/{id:id}", match_page),
        Route("/bots/{name:str}", bot_page),
        Route("/authors/{name:str}", author_page),
        Route("/submissions/{id:id}", submission_page),
        Route("/tournaments", tournaments_page),
        Route("/tournaments/{id:id}/", tournament_file),
        Route("/tournaments/{id:id}/{file:path}", tournament_file),
        Route("/static/{file:str}", static_file),
    ]
