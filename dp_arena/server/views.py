"""Rows as the API and the pages show them: plain JSON data, the same for both. Nothing
here computes a result; it reads what the checker and the ladder stored.

Times are given to the second, as ``2026-12-01T10:00:00Z`` (:func:`time_text`); places a
person reads (a table, a deal, a fault's hand) are numbered from 1, beside the index
from 0 that finds it in the ``tables`` arrays."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.orm import Session

from dp_arena.server import crud
from dp_arena.server.models import Match, Submission
from dp_arena.server.versions import version_of

__all__ = [
    "entry_json",
    "match_data",
    "match_json",
    "match_summaries",
    "match_summary",
    "submission_json",
    "time_text",
]


def time_text(stamp: str | None) -> str | None:
    """A stored time to the second (rows stored before kept microseconds)."""
    if stamp is None:
        return None
    whole, dot, _ = stamp.partition(".")
    return whole + "Z" if dot else stamp


def submission_json(
    row: Submission,
    authors: Mapping[int, str],
    *,
    report: bool = True,
    house: frozenset[int] = frozenset(),
) -> dict[str, Any]:
    version = version_of(row)
    data: dict[str, Any] = {
        "id": row.id,
        "status": row.status,
        "author": authors.get(row.author_id, ""),
        "house": row.author_id in house,
        "name": row.name,
        "version": None if version is None else version.label,
        "registry_version": row.version,
        "ref": row.ref,
        "sha256": None if version is None else version.sha256,
        "archive_sha256": row.archive_sha256,
        "archive_bytes": row.archive_bytes,
        "submitted": time_text(row.created_at),
        "checked": time_text(row.checked_at),
        "withdrawn": time_text(row.withdrawn_at),
        "reason": row.reason,
        "message": row.message,
    }
    if report:
        data["report"] = None if row.report is None else json.loads(row.report)
    return data


def entry_json(
    row: Submission, authors: Mapping[int, str], house: frozenset[int] = frozenset()
) -> dict[str, Any]:
    """A ladder entry as its leaderboard line names it (what
    :func:`~dp_arena.server.standings.leaderboard_json` takes)."""
    version = version_of(row)
    return {
        "id": row.id,
        "name": row.name,
        "version": None if version is None else version.label,
        "ref": row.ref,
        "author": authors.get(row.author_id, ""),
        "house": row.author_id in house,
    }


def _bot(
    row: Submission | None, authors: Mapping[int, str], house: frozenset[int]
) -> dict[str, Any]:
    if row is None:
        return {
            "id": None,
            "name": None,
            "ref": None,
            "version": None,
            "author": None,
            "house": False,
            "sha256": None,
        }
    version = version_of(row)
    return {
        "id": row.id,
        "name": row.name,
        "ref": row.ref,
        "version": None if version is None else version.label,
        "author": authors.get(row.author_id, ""),
        "house": row.author_id in house,
        # the content the match played: a replay checks it
        "sha256": None if version is None else version.sha256,
    }


def match_summary(
    match: Match,
    players: Sequence[int],
    submissions: Mapping[int, Submission],
    authors: Mapping[int, str],
    house: frozenset[int] = frozenset(),
) -> dict[str, Any]:
    """A match in a list: its bots (``players``: their submissions, agent 0 first),
    status, deals (each dealt at every one of its tables) and each bot's score once
    finished."""
    bots = [_bot(submissions.get(player), authors, house) for player in players]
    result = None if match.result is None else json.loads(match.result)
    if result is not None:
        for bot, agent in zip(bots, result["agents"], strict=True):
            bot["mbb_per_deal"] = agent["mbb_per_deal"]
            bot["ci95"] = agent["ci95"]
            bot["net_chips"] = agent["net_chips"]
            bot["faults"] = {kind: count for kind, count in agent["faults"].items() if count}
            # None for a match played before the clairvoyance test existed.
            bot["clairvoyance"] = agent.get("clairvoyance")
    return {
        "id": match.id,
        "status": match.status,
        "bots": bots,
        "players": len(players),  # and as many mirrored tables
        "deals": match.deals,
        "table_deals": match.deals * len(players),
        "betting": match.betting,
        "small_blind": match.small_blind,
        "big_blind": match.big_blind,
        "cap": match.cap,
        "commitment": match.commitment,
        "created": time_text(match.created_at),
        "started": time_text(match.started_at),
        "finished": time_text(match.finished_at),
        "attempts": match.attempts,
        "void_reason": match.void_reason,
    }


def match_json(
    match: Match,
    players: Sequence[int],
    submissions: Mapping[int, Submission],
    authors: Mapping[int, str],
    house: frozenset[int] = frozenset(),
) -> dict[str, Any]:
    """A whole match: the summary, the key once revealed, every table's results (the
    hands: cards, actions, nets) and every fault (its ``table`` and ``deal`` numbered
    from 1, as on the pages; ``table_index`` and ``deal_index`` from 0, as in
    ``tables``)."""
    data = match_summary(match, players, submissions, authors, house)
    result = None if match.result is None else json.loads(match.result)
    data["key"] = match.key_hex  # None until the match is over
    data["seatings"] = None if result is None else result["seatings"]
    data["faults"] = [] if result is None else [_fault(fault) for fault in result["faults"]]
    data["seconds"] = None if result is None else result.get("seconds")
    data["tables"] = [] if match.tables is None else json.loads(match.tables)
    return data


def _fault(fault: Mapping[str, Any]) -> dict[str, Any]:
    """A fault as the core records it (table and deal from 0), numbered from 1."""
    table, deal = fault.get("table"), fault.get("deal")
    return {
        **fault,
        "table": None if table is None else table + 1,
        "deal": None if deal is None else deal + 1,
        "table_index": table,
        "deal_index": deal,
    }


def match_summaries(session: Session, matches: Sequence[Match]) -> list[dict[str, Any]]:
    """The summaries of ``matches`` (:func:`match_summary`), read in a few queries."""
    players = crud.players_of(session, [match.id for match in matches])
    submissions = crud.submissions_by_id(
        session, sorted({player for seated in players.values() for player in seated})
    )
    authors, house = crud.authors(session), crud.house_ids(session)
    return [
        match_summary(match, players[match.id], submissions, authors, house) for match in matches
    ]


def match_data(session: Session, match: Match) -> dict[str, Any]:
    """One whole match (:func:`match_json`), as ``GET /api/matches/{id}`` gives it."""
    players = crud.players_of(session, [match.id])[match.id]
    submissions = crud.submissions_by_id(session, players)
    return match_json(match, players, submissions, crud.authors(session), crud.house_ids(session))
