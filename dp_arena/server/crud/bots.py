"""Queries of submissions and bots: uploads, their checks, the ladder's entries and
withdrawals."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy import ColumnElement, func, select, update
from sqlalchemy.orm import Session

from dp_arena.server.crud.common import (
    ACCEPTED,
    CHECKING,
    WITHDRAWN,
    inserted,
    stamp,
)
from dp_arena.server.models import (
    Author,
    Bot,
    Submission,
    now,
)

__all__ = [
    "add_submission",
    "bot_named",
    "bots_of",
    "checking_count",
    "claim_bot_name",
    "current_entries",
    "ineligible",
    "lock_author",
    "oldest_checking",
    "submission",
    "submissions_of_author",
    "submissions_of_bot",
    "uploads_since",
    "withdraw",
    "withdraw_bot",
]


# -- submissions and bots ----------------------------------------------------------------


def add_submission(session: Session, author: Author, archive_sha256: str, size: int) -> Submission:
    return inserted(
        session,
        Submission(
            author_id=author.id,
            status=CHECKING,
            archive_sha256=archive_sha256,
            archive_bytes=size,
            created_at=now(),
        ),
    )


def lock_author(session: Session, author_id: int) -> None:
    """Take the author's row for this transaction (a write of it: PostgreSQL locks the
    row, SQLite the database), so that counting its uploads and adding one are one step
    that no other upload of the same author can come between."""
    session.execute(update(Author).where(Author.id == author_id).values(name=Author.name))


def uploads_since(session: Session, author: Author, hours: float) -> int:
    since = stamp(-timedelta(hours=hours))
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
        return inserted(session, Bot(name=name, author_id=author_id, created_at=now()))
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
    """The ladder's entries: each bot's newest accepted, not withdrawn version, of an
    author not disabled (the house bots among them)."""
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
        .join(Author, Author.id == Submission.author_id)
        .where(Submission.status == ACCEPTED, Author.disabled_at.is_(None))
        .order_by(Submission.name)
    )
    return list(rows)


def ineligible(session: Session, submission_ids: Sequence[int]) -> list[str]:
    """Why any of these submissions may not be seated now (withdrawn, never accepted, its
    author disabled): one sentence each, none when all may play."""
    problems = []
    for submission_id in submission_ids:
        row = session.get(Submission, submission_id)
        if row is None:
            problems.append(f"submission {submission_id} is gone")
            continue
        author = session.get(Author, row.author_id)
        name = row.ref or row.name or f"submission {row.id}"
        if row.status != ACCEPTED:
            problems.append(f"{name} is {row.status}")
        elif author is not None and author.disabled_at is not None:
            problems.append(f"{name}'s author {author.name} is disabled")
    return problems


def withdraw(session: Session, submission: Submission) -> None:
    submission.status = WITHDRAWN
    submission.withdrawn_at = now()


def withdraw_bot(session: Session, bot: Bot) -> list[Submission]:
    """Withdraw every accepted version of ``bot`` (so that no older one takes its place
    in the ladder) and every one still waiting for its check; those withdrawn."""
    rows = [
        row for row in submissions_of_bot(session, bot.id) if row.status in (ACCEPTED, CHECKING)
    ]
    for row in rows:
        withdraw(session, row)
    return rows


def bots_of(session: Session, author_id: int | None = None) -> Sequence[Bot]:
    query = select(Bot).order_by(Bot.name)
    if author_id is not None:
        query = query.where(Bot.author_id == author_id)
    return session.scalars(query).all()
