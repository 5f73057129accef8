"""Queries of play: matches and their players, the ladder's standings (snapshots and
points) and tournaments."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, defer

from dp_arena.server.crud.common import (
    FINISHED,
    PLAYING,
    SCHEDULED,
    inserted,
)
from dp_arena.server.models import (
    LadderPoint,
    Match,
    MatchPlayer,
    Snapshot,
    Submission,
    Tournament,
    now,
)

__all__ = [
    "add_match",
    "add_points",
    "add_snapshot",
    "add_tournament",
    "finished_matches",
    "last_played",
    "latest_snapshot",
    "match",
    "match_status",
    "players_of",
    "points_of",
    "recent_matches",
    "submissions_by_id",
    "tournament",
    "tournaments",
    "unfinished_matches",
]


# -- matches -----------------------------------------------------------------------------


def add_match(
    session: Session,
    players: Sequence[Submission],
    *,
    deals: int,
    betting: str,
    small_blind: int,
    big_blind: int,
    cap: int,
    commitment: str,
) -> Match:
    match = inserted(
        session,
        Match(
            status=PLAYING,
            deals=deals,
            betting=betting,
            small_blind=small_blind,
            big_blind=big_blind,
            cap=cap,
            commitment=commitment,
            created_at=now(),
            started_at=now(),
            attempts=1,
        ),
    )
    for position, player in enumerate(players):
        session.add(MatchPlayer(match_id=match.id, position=position, submission_id=player.id))
    session.flush()
    return match


def match(session: Session, match_id: int) -> Match | None:
    return session.get(Match, match_id)


def match_status(session: Session, match_id: int) -> str | None:
    """A match's status alone (``None``: no such match)."""
    return session.scalar(select(Match.status).where(Match.id == match_id))


# A match's tables (every deal of every table) are most of its row: a list of matches
# reads them only when one is asked for.
_NO_TABLES = defer(Match.tables)


def unfinished_matches(session: Session) -> Sequence[Match]:
    return session.scalars(
        select(Match)
        .options(_NO_TABLES)
        .where(Match.status.in_((SCHEDULED, PLAYING)))
        .order_by(Match.id)
    ).all()


def finished_matches(session: Session) -> Sequence[Match]:
    return session.scalars(
        select(Match).options(_NO_TABLES).where(Match.status == FINISHED).order_by(Match.id)
    ).all()


def players_of(session: Session, match_ids: Sequence[int]) -> dict[int, list[int]]:
    """Each match's submissions, in the order of their positions (agent 0 first)."""
    found: dict[int, list[int]] = {match_id: [] for match_id in match_ids}
    if not match_ids:
        return found
    for row in session.scalars(
        select(MatchPlayer)
        .where(MatchPlayer.match_id.in_(match_ids))
        .order_by(MatchPlayer.match_id, MatchPlayer.position)
    ):
        found[row.match_id].append(row.submission_id)
    return found


def recent_matches(
    session: Session,
    *,
    limit: int = 50,
    before: int | None = None,
    submission_ids: Sequence[int] = (),
) -> Sequence[Match]:
    query = select(Match).options(_NO_TABLES).order_by(Match.id.desc()).limit(limit)
    if before is not None:
        query = query.where(Match.id < before)
    if submission_ids:
        played = select(MatchPlayer.match_id).where(MatchPlayer.submission_id.in_(submission_ids))
        query = query.where(Match.id.in_(played))
    return session.scalars(query).all()


def last_played(session: Session) -> dict[int, int]:
    """Each submission's latest match id (the matches it was seated in)."""
    rows = session.execute(
        select(MatchPlayer.submission_id, func.max(MatchPlayer.match_id)).group_by(
            MatchPlayer.submission_id
        )
    )
    return {int(submission): int(match) for submission, match in rows}


def submissions_by_id(session: Session, ids: Sequence[int]) -> dict[int, Submission]:
    if not ids:
        return {}
    return {
        row.id: row for row in session.scalars(select(Submission).where(Submission.id.in_(ids)))
    }


# -- the ladder's standings ----------------------------------------------------------------


def add_snapshot(session: Session, match_id: int | None, data: dict[str, Any]) -> None:
    session.add(Snapshot(match_id=match_id, created_at=now(), data=json.dumps(data)))


def latest_snapshot(session: Session) -> dict[str, Any] | None:
    row = session.scalar(select(Snapshot).order_by(Snapshot.id.desc()).limit(1))
    return None if row is None else dict(json.loads(row.data))


def add_points(session: Session, match_id: int, points: Sequence[dict[str, Any]]) -> None:
    stamp = now()
    for point in points:
        session.add(
            LadderPoint(
                match_id=match_id,
                submission_id=point["submission"],
                deals=point["deals"],
                mbb_per_deal=repr(point["mbb_per_deal"]),
                ci_low=None if point["ci95"] is None else repr(point["ci95"][0]),
                ci_high=None if point["ci95"] is None else repr(point["ci95"][1]),
                mu=repr(point["mu"]),
                sigma=repr(point["sigma"]),
                created_at=stamp,
            )
        )


def points_of(session: Session, submission_ids: Sequence[int]) -> Sequence[LadderPoint]:
    return session.scalars(
        select(LadderPoint)
        .where(LadderPoint.submission_id.in_(submission_ids))
        .order_by(LadderPoint.id)
    ).all()


# -- tournaments ---------------------------------------------------------------------------


def add_tournament(
    session: Session, name: str, config: str, run_dir: str, *, commitment: str | None = None
) -> Tournament:
    return inserted(
        session,
        Tournament(
            name=name,
            status="running",
            config=config,
            run_dir=run_dir,
            commitment=commitment,
            created_at=now(),
        ),
    )


def tournaments(session: Session) -> Sequence[Tournament]:
    return session.scalars(select(Tournament).order_by(Tournament.id.desc())).all()


def tournament(session: Session, tournament_id: int) -> Tournament | None:
    return session.get(Tournament, tournament_id)
