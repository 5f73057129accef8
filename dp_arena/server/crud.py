"""Queries: every read and write of the server's tables, as plain functions over a
session. Routes and workers call these; none of them builds SQL of its own."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, func, or_, select, update
from sqlalchemy.orm import Session

from dp_arena.errors import ConfigError
from dp_arena.server.models import (
    Author,
    Bot,
    LadderPoint,
    Match,
    Snapshot,
    Submission,
    Token,
    Tournament,
    WebSession,
    now,
)
from dp_arena.server.tokens import hash_secret, new_secret, new_token

__all__ = [
    "AUTHOR_NAME",
    "add_author",
    "add_token",
    "author_for_session",
    "author_for_token",
    "current_entries",
]

AUTHOR_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
CHECKING, ACCEPTED, REJECTED, WITHDRAWN = "checking", "accepted", "rejected", "withdrawn"
SCHEDULED, PLAYING, FINISHED, VOID = "scheduled", "playing", "finished", "void"

Row = TypeVar("Row")


def _time(delta: timedelta = timedelta()) -> str:
    return (datetime.now(UTC) + delta).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _inserted(session: Session, row: Row) -> Row:
    """``row`` added and flushed: its id is known from now on."""
    session.add(row)
    session.flush()
    return row


# -- authors and tokens ------------------------------------------------------------------


def add_author(session: Session, name: str) -> tuple[Author, str]:
    """A new author and its first token (the token's text is returned once, never stored)."""
    if not AUTHOR_NAME.match(name):
        raise ConfigError(
            f"an author's name is 1-64 of A-Z a-z 0-9 _ . - (starting with a letter or digit),"
            f" not {name!r}",
            field="name",
        )
    if session.scalar(select(Author).where(Author.name == name)) is not None:
        raise ConfigError(f"there is already an author named {name!r}", field="name")
    author = _inserted(session, Author(name=name, created_at=now()))
    return author, add_token(session, author)


def add_token(session: Session, author: Author) -> str:
    token = new_token()
    session.add(Token(author_id=author.id, token_hash=hash_secret(token), created_at=now()))
    session.flush()
    return token


def author_named(session: Session, name: str) -> Author | None:
    return session.scalar(select(Author).where(Author.name == name))


def author_for_token(session: Session, token: str) -> Author | None:
    """The author whose live token this is, or ``None``."""
    return session.scalar(
        select(Author)
        .join(Token, Token.author_id == Author.id)
        .where(Token.token_hash == hash_secret(token), Token.revoked_at.is_(None))
    )


def revoke_tokens(session: Session, author: Author) -> int:
    result = session.execute(
        update(Token)
        .where(Token.author_id == author.id, Token.revoked_at.is_(None))
        .values(revoked_at=now())
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def authors(session: Session) -> dict[int, str]:
    return {author.id: author.name for author in session.scalars(select(Author))}


# -- browser sessions --------------------------------------------------------------------


def open_web_session(session: Session, author: Author, hours: int = 12) -> tuple[str, str]:
    """A signed-in browser: (the cookie's value, the CSRF token of its forms)."""
    cookie, csrf = new_secret(), new_secret()
    session.add(
        WebSession(
            author_id=author.id,
            session_hash=hash_secret(cookie),
            csrf=csrf,
            created_at=now(),
            expires_at=_time(timedelta(hours=hours)),
        )
    )
    return cookie, csrf


def author_for_session(session: Session, cookie: str) -> tuple[Author, str] | None:
    """The signed-in author of a live session cookie and its CSRF token."""
    row = session.execute(
        select(Author, WebSession.csrf)
        .join(WebSession, WebSession.author_id == Author.id)
        .where(WebSession.session_hash == hash_secret(cookie), WebSession.expires_at > now())
    ).first()
    return None if row is None else (row[0], row[1])


def close_web_session(session: Session, cookie: str) -> None:
    for row in session.scalars(
        select(WebSession).where(WebSession.session_hash == hash_secret(cookie))
    ):
        session.delete(row)


# -- submissions and bots ----------------------------------------------------------------


def add_submission(session: Session, author: Author, archive_sha256: str, size: int) -> Submission:
    return _inserted(
        session,
        Submission(
            author_id=author.id,
            status=CHECKING,
            archive_sha256=archive_sha256,
            archive_bytes=size,
            created_at=now(),
        ),
    )


def uploads_since(session: Session, author: Author, hours: float) -> int:
    since = _time(-timedelta(hours=hours))
    return _submissions_counted(session, author, Submission.created_at >= since)


def checking_count(session: Session, author: Author) -> int:
    return _submissions_counted(session, author, Submission.status == CHECKING)


def _submissions_counted(session: Session, author: Author, condition: ColumnElement[bool]) -> int:
    """How many of ``author``'s submissions meet ``condition``."""
    return int(
        session.scalar(
            select(func.count(Submission.id)).where(Submission.author_id == author.id, condition)
        )
        or 0
    )


def oldest_checking(session: Session) -> Submission | None:
    return session.scalar(
        select(Submission).where(Submission.status == CHECKING).order_by(Submission.id).limit(1)
    )


def claim_bot_name(session: Session, name: str, author_id: int) -> Bot | None:
    """The bot ``name`` for this author: made if new, ``None`` when another author owns it."""
    bot = session.scalar(select(Bot).where(Bot.name == name))
    if bot is None:
        return _inserted(session, Bot(name=name, author_id=author_id, created_at=now()))
    return bot if bot.author_id == author_id else None


def submission(session: Session, submission_id: int) -> Submission | None:
    return session.get(Submission, submission_id)


def submissions_of_bot(session: Session, bot_id: int) -> Sequence[Submission]:
    return session.scalars(
        select(Submission).where(Submission.bot_id == bot_id).order_by(Submission.id.desc())
    ).all()


def submissions_of_author(
    session: Session, author_id: int, limit: int = 100
) -> Sequence[Submission]:
    return session.scalars(
        select(Submission)
        .where(Submission.author_id == author_id)
        .order_by(Submission.id.desc())
        .limit(limit)
    ).all()


def bot_named(session: Session, name: str) -> Bot | None:
    return session.scalar(select(Bot).where(Bot.name == name))


def current_entries(session: Session) -> list[Submission]:
    """The ladder's entries: each bot's newest accepted, not withdrawn version."""
    newest = (
        select(Submission.bot_id, func.max(Submission.version).label("version"))
        .where(Submission.status == ACCEPTED)
        .group_by(Submission.bot_id)
        .subquery()
    )
    rows = session.scalars(
        select(Submission)
        .join(
            newest,
            (Submission.bot_id == newest.c.bot_id) & (Submission.version == newest.c.version),
        )
        .where(Submission.status == ACCEPTED)
        .order_by(Submission.name)
    )
    return list(rows)


def withdraw(session: Session, submission: Submission) -> None:
    submission.status = WITHDRAWN
    submission.withdrawn_at = now()


# -- matches -----------------------------------------------------------------------------


def add_match(
    session: Session,
    first: Submission,
    second: Submission,
    *,
    deals: int,
    betting: str,
    small_blind: int,
    big_blind: int,
    cap: int,
    commitment: str,
) -> Match:
    return _inserted(
        session,
        Match(
            status=SCHEDULED,
            first_id=first.id,
            second_id=second.id,
            deals=deals,
            betting=betting,
            small_blind=small_blind,
            big_blind=big_blind,
            cap=cap,
            commitment=commitment,
            created_at=now(),
            attempts=0,
        ),
    )


def match(session: Session, match_id: int) -> Match | None:
    return session.get(Match, match_id)


def unfinished_matches(session: Session) -> Sequence[Match]:
    return session.scalars(
        select(Match).where(Match.status.in_((SCHEDULED, PLAYING))).order_by(Match.id)
    ).all()


def finished_matches(session: Session) -> Sequence[Match]:
    return session.scalars(select(Match).where(Match.status == FINISHED).order_by(Match.id)).all()


def recent_matches(
    session: Session,
    *,
    limit: int = 50,
    before: int | None = None,
    submission_ids: Sequence[int] = (),
) -> Sequence[Match]:
    query = select(Match).order_by(Match.id.desc()).limit(limit)
    if before is not None:
        query = query.where(Match.id < before)
    if submission_ids:
        query = query.where(
            or_(Match.first_id.in_(submission_ids), Match.second_id.in_(submission_ids))
        )
    return session.scalars(query).all()


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
    return _inserted(
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
