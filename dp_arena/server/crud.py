"""Queries: every read and write of the server's tables, as plain functions over a
session. Routes and workers call these; none of them builds SQL of its own."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, func, select, update
from sqlalchemy.orm import Session, defer

from dp_arena.errors import ConfigError
from dp_arena.server.models import (
    Author,
    Bot,
    LadderPoint,
    Match,
    MatchPlayer,
    Moderation,
    Organiser,
    ServerState,
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
HOUSE = "house"  # the author of the house bots
LADDER_PAUSED = "ladder_paused"  # a server_state key: "yes" while the ladder is paused
SCHEDULED, PLAYING, FINISHED, VOID = "scheduled", "playing", "finished", "void"

Row = TypeVar("Row")


def _time(delta: timedelta = timedelta()) -> str:
    return (datetime.now(UTC) + delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def _inserted(session: Session, row: Row) -> Row:
    """``row`` added and flushed: its id is known from now on."""
    session.add(row)
    session.flush()
    return row


# -- authors and tokens ------------------------------------------------------------------


def _check_name(name: str, who: str = "an author") -> None:
    if not AUTHOR_NAME.match(name):
        raise ConfigError(
            f"{who}'s name is 1-64 of A-Z a-z 0-9 _ . - (starting with a letter or digit),"
            f" not {name!r}",
            field="name",
        )


def add_author(session: Session, name: str) -> tuple[Author, str]:
    """A new author and its first token (the token's text is returned once, never stored)."""
    _check_name(name)
    if session.scalar(select(Author).where(Author.name == name)) is not None:
        raise ConfigError(f"there is already an author named {name!r}", field="name")
    author = _inserted(session, Author(name=name, created_at=now(), house=False))
    return author, add_token(session, author)


def house_author(session: Session) -> Author:
    """The author of the house bots (made the first time), who has no token."""
    house = session.scalar(select(Author).where(Author.house.is_(True)))
    if house is not None:
        return house
    if author_named(session, HOUSE) is not None:
        raise ConfigError(
            f"an author is named {HOUSE!r}: the house bots need that name; rename the author"
            " in the database first",
            field="house_bots",
        )
    return _inserted(session, Author(name=HOUSE, created_at=now(), house=True))


def add_token(session: Session, author: Author) -> str:
    token = new_token()
    session.add(Token(author_id=author.id, token_hash=hash_secret(token), created_at=now()))
    session.flush()
    return token


def author_named(session: Session, name: str) -> Author | None:
    return session.scalar(select(Author).where(Author.name == name))


def author_for_token(session: Session, token: str) -> Author | None:
    """The author whose live token this is (not disabled), or ``None``."""
    return session.scalar(
        select(Author)
        .join(Token, Token.author_id == Author.id)
        .where(
            Token.token_hash == hash_secret(token),
            Token.revoked_at.is_(None),
            Author.disabled_at.is_(None),
        )
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


def house_ids(session: Session) -> frozenset[int]:
    """The ids of the house's authors (one at most): their bots are house bots."""
    return frozenset(session.scalars(select(Author.id).where(Author.house.is_(True))))


def all_authors(session: Session) -> Sequence[Author]:
    return session.scalars(select(Author).order_by(Author.name)).all()


def set_author_disabled(session: Session, author: Author, disabled: bool) -> bool:
    """Disable (or enable again) an author: while disabled its tokens and browser
    sessions do not work and its bots are out of the ladder; nothing is deleted.
    Whether anything changed."""
    if author.house:
        raise ConfigError("the house is not an author to disable: leave --house-bots out")
    if disabled == (author.disabled_at is not None):
        return False
    author.disabled_at = now() if disabled else None
    if disabled:  # signed-in browsers are signed out at once
        session.execute(
            update(WebSession)
            .where(WebSession.author_id == author.id, WebSession.expires_at > now())
            .values(expires_at=now())
        )
    return True


# -- organisers, the server's switches and the moderation log ---------------------------------


def organiser_token(session: Session, name: str) -> tuple[Organiser, str, bool]:
    """An organiser's new token (the organiser made if new, its old token revoked): the
    organiser, the token's text (shown once) and whether the organiser is new."""
    _check_name(name, "an organiser")
    token = new_token()
    organiser = session.scalar(select(Organiser).where(Organiser.name == name))
    if organiser is None:
        organiser = _inserted(
            session, Organiser(name=name, token_hash=hash_secret(token), created_at=now())
        )
        return organiser, token, True
    organiser.token_hash, organiser.revoked_at = hash_secret(token), None
    return organiser, token, False


def organiser_for_token(session: Session, token: str) -> Organiser | None:
    return session.scalar(
        select(Organiser).where(
            Organiser.token_hash == hash_secret(token), Organiser.revoked_at.is_(None)
        )
    )


def state(session: Session, key: str) -> ServerState | None:
    return session.get(ServerState, key)


def set_state(session: Session, key: str, value: str, by: str) -> None:
    row = session.get(ServerState, key)
    if row is None:
        session.add(ServerState(key=key, value=value, updated_at=now(), updated_by=by))
    else:
        row.value, row.updated_at, row.updated_by = value, now(), by


def ladder_paused(session: Session) -> bool:
    row = session.get(ServerState, LADDER_PAUSED)
    return row is not None and row.value == "yes"


def moderate(session: Session, actor: str, action: str, target: str) -> None:
    """Record an organiser's action in the moderation log."""
    session.add(Moderation(created_at=now(), actor=actor, action=action, target=target[:200]))


def moderation_log(session: Session, limit: int = 50) -> Sequence[Moderation]:
    return session.scalars(select(Moderation).order_by(Moderation.id.desc()).limit(limit)).all()


# -- browser sessions --------------------------------------------------------------------


def open_web_session(session: Session, who: Author | Organiser, hours: int = 12) -> tuple[str, str]:
    """A signed-in browser, an author's or an organiser's: (the cookie's value, the CSRF
    token of its forms)."""
    cookie, csrf = new_secret(), new_secret()
    session.add(
        WebSession(
            author_id=who.id if isinstance(who, Author) else None,
            organiser_id=who.id if isinstance(who, Organiser) else None,
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
        .where(
            WebSession.session_hash == hash_secret(cookie),
            WebSession.expires_at > now(),
            Author.disabled_at.is_(None),
        )
    ).first()
    return None if row is None else (row[0], row[1])


def organiser_for_session(session: Session, cookie: str) -> tuple[Organiser, str] | None:
    """The signed-in organiser of a live session cookie and its CSRF token."""
    row = session.execute(
        select(Organiser, WebSession.csrf)
        .join(WebSession, WebSession.organiser_id == Organiser.id)
        .where(
            WebSession.session_hash == hash_secret(cookie),
            WebSession.expires_at > now(),
            Organiser.revoked_at.is_(None),
        )
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


def lock_author(session: Session, author_id: int) -> None:
    """Take the author's row for this transaction (a write of it: PostgreSQL locks the
    row, SQLite the database), so that counting its uploads and adding one are one step
    that no other upload of the same author can come between."""
    session.execute(update(Author).where(Author.id == author_id).values(name=Author.name))


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
    match = _inserted(
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
