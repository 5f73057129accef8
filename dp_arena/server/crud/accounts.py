"""Queries of who uses the server: authors and their tokens, organisers, the server's
switches and moderation log, and signed-in browsers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import TypeVar

from sqlalchemy import ColumnElement, select, update
from sqlalchemy.orm import InstrumentedAttribute, Session

from dp_arena.errors import ConfigError
from dp_arena.server.crud.common import (
    AUTHOR_NAME,
    HOUSE,
    LADDER_PAUSED,
    inserted,
    stamp,
)
from dp_arena.server.models import (
    Author,
    Moderation,
    Organiser,
    ServerState,
    Token,
    WebSession,
    now,
)
from dp_arena.server.tokens import hash_secret, new_secret, new_token

Who = TypeVar("Who", Author, Organiser)

__all__ = [
    "add_author",
    "add_token",
    "all_authors",
    "author_for_session",
    "author_for_token",
    "author_named",
    "authors",
    "close_web_session",
    "house_author",
    "house_ids",
    "ladder_paused",
    "moderate",
    "moderation_log",
    "open_web_session",
    "organiser_for_session",
    "organiser_for_token",
    "organiser_token",
    "revoke_tokens",
    "set_author_disabled",
    "set_state",
    "state",
]


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
    author = inserted(session, Author(name=name, created_at=now(), house=False))
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
    return inserted(session, Author(name=HOUSE, created_at=now(), house=True))


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
        organiser = inserted(
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
            expires_at=stamp(timedelta(hours=hours)),
        )
    )
    return cookie, csrf


def author_for_session(session: Session, cookie: str) -> tuple[Author, str] | None:
    """The signed-in author of a live session cookie and its CSRF token."""
    live = Author.disabled_at.is_(None)
    return _signed_in(session, cookie, Author, WebSession.author_id, live)


def organiser_for_session(session: Session, cookie: str) -> tuple[Organiser, str] | None:
    """The signed-in organiser of a live session cookie and its CSRF token."""
    live = Organiser.revoked_at.is_(None)
    return _signed_in(session, cookie, Organiser, WebSession.organiser_id, live)


def _signed_in(
    session: Session,
    cookie: str,
    who: type[Who],
    owner: InstrumentedAttribute[int | None],
    live: ColumnElement[bool],
) -> tuple[Who, str] | None:
    """The ``who`` (its id in the session's column ``owner``, and ``live``) signed in by a
    session cookie that has not expired, and the session's CSRF token."""
    row = session.execute(
        select(who, WebSession.csrf)
        .join(WebSession, owner == who.id)
        .where(WebSession.session_hash == hash_secret(cookie), WebSession.expires_at > now(), live)
    ).first()
    return None if row is None else (row[0], row[1])


def close_web_session(session: Session, cookie: str) -> None:
    for row in session.scalars(
        select(WebSession).where(WebSession.session_hash == hash_secret(cookie))
    ):
        session.delete(row)
