"""Rows as the API and the pages show them: plain JSON data, the same for both. Nothing
here computes a result; it reads what the checker and the ladder stored."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from dp_arena.server.models import Match, Submission

__all__ = ["entry_json", "match_json", "match_summary", "submission_json"]


def submission_json(
    row: Submission, authors: Mapping[int, str], *, report: bool = True
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": row.id,
        "status": row.status,
        "author": authors.get(row.author_id, ""),
        "name": row.name,
        "version": row.label,
        "registry_version": row.version,
        "ref": row.ref,
        "sha256": row.sha256,
        "archive_sha256": row.archive_sha256,
        "archive_bytes": row.archive_bytes,
        "submitted": row.created_at,
        "checked": row.checked_at,
        "withdrawn": row.withdrawn_at,
        "reason": row.reason,
        "message": row.message,
    }
    if report:
        data["report"] = None if row.report is None else json.loads(row.report)
    return data


def entry_json(row: Submission, authors: Mapping[int, str]) -> dict[str, Any]:
    """A ladder entry as its leaderboard line names it (what
    :func:`~dp_arena.server.standings.leaderboard_json` takes)."""
    return {
        "id": row.id,
        "name": row.name,
        "version": row.label,
        "ref": row.ref,
        "author": authors.get(row.author_id, ""),
    }


def _bot(row: Submission | None, authors: Mapping[int, str]) -> dict[str, Any]:
    if row is None:
        return {
            "id": None,
            "name": None,
            "ref": None,
            "version": None,
            "author": None,
            "sha256": None,
        }
    return {
        "id": row.id,
        "name": row.name,
        "ref": row.ref,
        "version": row.label,
        "author": authors.get(row.author_id, ""),
        "sha256": row.sha256,  # the content the match played: a replay checks it
    }


def match_summary(
    match: Match, submissions: Mapping[int, Submission], authors: Mapping[int, str]
) -> dict[str, Any]:
    """A match in a list: its bots, status, deals and each bot's score once finished."""
    bots = [
        _bot(submissions.get(match.first_id), authors),
        _bot(submissions.get(match.second_id), authors),
    ]
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
        "deals": match.deals,
        "betting": match.betting,
        "small_blind": match.small_blind,
        "big_blind": match.big_blind,
        "cap": match.cap,
        "commitment": match.commitment,
        "created": match.created_at,
        "started": match.started_at,
        "finished": match.finished_at,
        "attempts": match.attempts,
        "void_reason": match.void_reason,
    }


def match_json(
    match: Match, submissions: Mapping[int, Submission], authors: Mapping[int, str]
) -> dict[str, Any]:
    """A whole match: the summary, the key once revealed, every table's results (the
    hands: cards, actions, nets) and every fault."""
    data = match_summary(match, submissions, authors)
    result = None if match.result is None else json.loads(match.result)
    data["key"] = match.key_hex  # None until the match is over
    data["seatings"] = None if result is None else result["seatings"]
    data["faults"] = [] if result is None else result["faults"]
    data["seconds"] = None if result is None else result.get("seconds")
    data["tables"] = [] if match.tables is None else json.loads(match.tables)
    return data
