"""The server's tables: authors and their tokens, bots and their submitted versions, ladder
matches with their keys and hands, the ladder's standings over time, tournaments and the
browser sessions of signed-in authors.

Times are stored as UTC text (``2026-12-01T10:00:00Z``): it sorts as time does and reads
the same on SQLite and PostgreSQL. Structured records (a check report, a match's table
results) are JSON text: they are data the core computed, kept whole. The schema is made
and changed by the migrations in ``migrations/`` only; a test checks that they and these
models agree.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "Author",
    "Base",
    "Bot",
    "LadderPoint",
    "Match",
    "MatchPlayer",
    "Moderation",
    "Organiser",
    "ServerState",
    "Snapshot",
    "Submission",
    "Token",
    "Tournament",
    "WebSession",
    "now",
]

NAME_LENGTH = 64


def now() -> str:
    """The current time as the tables store it, to the second."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Base(DeclarativeBase):
    pass


class Author(Base):
    """Someone who submits bots; known by a name, signed in by a bearer token. The
    ``house`` author holds the house bots (the built-ins the organiser seats on the
    ladder) and has no token. A disabled author (``disabled_at``) keeps every row, but
    its tokens and sessions no longer work and its bots leave the ladder."""

    __tablename__ = "authors"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH), unique=True)
    created_at: Mapped[str] = mapped_column(String(32))
    house: Mapped[bool] = mapped_column(Boolean, default=False)
    disabled_at: Mapped[str | None] = mapped_column(String(32), default=None)


class Token(Base):
    """A bearer token, stored as the SHA-256 of its text (the text is shown once)."""

    __tablename__ = "tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("authors.id"))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[str] = mapped_column(String(32))
    revoked_at: Mapped[str | None] = mapped_column(String(32), default=None)


class Bot(Base):
    """A bot name, owned by the author who first submitted it; its versions are the
    accepted submissions under that name."""

    __tablename__ = "bots"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH), unique=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("authors.id"))
    created_at: Mapped[str] = mapped_column(String(32))


class Submission(Base):
    """One uploaded archive: ``checking`` until the sandboxed check has run, then
    ``accepted`` (a version of its bot, in the registry as ``name@version``) or
    ``rejected`` (``reason`` and ``message`` say why); ``withdrawn`` by its author.

    The version itself is the registry's: a row names it (``name``, ``version``) and the
    registry's store alone keeps its facts (its label, its content hash, what to run;
    :func:`dp_arena.server.versions.version_of`). A house bot is a built-in, in no
    registry: its row keeps the content hash of the built-in it seats
    (``builtin_sha256``)."""

    __tablename__ = "submissions"

    id: Mapped[int] = mapped_column(primary_key=True)
    author_id: Mapped[int] = mapped_column(ForeignKey("authors.id"))
    bot_id: Mapped[int | None] = mapped_column(ForeignKey("bots.id"), default=None)
    status: Mapped[str] = mapped_column(String(16))
    archive_sha256: Mapped[str] = mapped_column(String(64))
    archive_bytes: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[str] = mapped_column(String(32))
    checked_at: Mapped[str | None] = mapped_column(String(32), default=None)
    withdrawn_at: Mapped[str | None] = mapped_column(String(32), default=None)
    name: Mapped[str | None] = mapped_column(String(NAME_LENGTH), default=None)
    version: Mapped[int | None] = mapped_column(Integer, default=None)
    builtin_sha256: Mapped[str | None] = mapped_column(String(64), default=None)
    reason: Mapped[str | None] = mapped_column(String(32), default=None)
    message: Mapped[str | None] = mapped_column(Text, default=None)
    report: Mapped[str | None] = mapped_column(Text, default=None)

    __table_args__ = (
        Index("ix_submissions_status", "status"),
        Index("ix_submissions_author_created", "author_id", "created_at"),
    )

    @property
    def ref(self) -> str | None:
        """``name@version`` once accepted."""
        return None if self.version is None else f"{self.name}@{self.version}"


class Match(Base):
    """A ladder match: k accepted submissions (its :class:`MatchPlayer` rows, k from 2
    to 6) at k mirrored tables, seats rotated, each dealt the same ``deals`` deals. Its
    deck key's ``commitment`` is stored before the first card is dealt; the key itself
    stays in an owner-only file until the match is over, then ``key_hex`` reveals it.
    ``playing`` → ``finished``; ``scheduled`` again when a stop cut it short (played
    again with its key), or ``void``, with ``void_reason``, when it can never be played
    as committed."""

    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    deals: Mapped[int] = mapped_column(Integer)
    betting: Mapped[str] = mapped_column(String(16))
    small_blind: Mapped[int] = mapped_column(Integer)
    big_blind: Mapped[int] = mapped_column(Integer)
    cap: Mapped[int] = mapped_column(Integer)
    commitment: Mapped[str] = mapped_column(String(64))
    key_hex: Mapped[str | None] = mapped_column(String(64), default=None)
    created_at: Mapped[str] = mapped_column(String(32))
    started_at: Mapped[str | None] = mapped_column(String(32), default=None)
    finished_at: Mapped[str | None] = mapped_column(String(32), default=None)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    result: Mapped[str | None] = mapped_column(Text, default=None)
    tables: Mapped[str | None] = mapped_column(Text, default=None)
    void_reason: Mapped[str | None] = mapped_column(Text, default=None)

    __table_args__ = (Index("ix_matches_status", "status"),)


class MatchPlayer(Base):
    """Who plays a match: the submission of agent ``position`` (0 first; agent ``a`` sits
    at seat ``(a + t) % k`` of table ``t``)."""

    __tablename__ = "match_players"

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"))
    position: Mapped[int] = mapped_column(Integer)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id"))

    __table_args__ = (
        UniqueConstraint("match_id", "position", name="uq_match_players_position"),
        Index("ix_match_players_submission", "submission_id"),
    )


class LadderPoint(Base):
    """A bot version's standing after a ladder match finished: its score with its
    interval and its rating, for the score-over-time chart."""

    __tablename__ = "ladder_points"

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"))
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id"))
    deals: Mapped[int] = mapped_column(Integer)
    mbb_per_deal: Mapped[str] = mapped_column(String(32))
    ci_low: Mapped[str | None] = mapped_column(String(32), default=None)
    ci_high: Mapped[str | None] = mapped_column(String(32), default=None)
    mu: Mapped[str] = mapped_column(String(32))
    sigma: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[str] = mapped_column(String(32))

    __table_args__ = (Index("ix_ladder_points_submission", "submission_id"),)


class Snapshot(Base):
    """The ladder's standings as the API serves them, computed from every finished match
    when one finishes (a cache of a pure function of the matches)."""

    __tablename__ = "snapshots"

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id"), default=None)
    created_at: Mapped[str] = mapped_column(String(32))
    data: Mapped[str] = mapped_column(Text)


class Tournament(Base):
    """A tournament config played over the accepted bots and published on the server;
    ``commitment`` is its deck key's, stored before the first deal."""

    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16))
    config: Mapped[str] = mapped_column(Text)
    run_dir: Mapped[str] = mapped_column(Text)
    published_dir: Mapped[str | None] = mapped_column(Text, default=None)
    commitment: Mapped[str | None] = mapped_column(String(64), default=None)
    created_at: Mapped[str] = mapped_column(String(32))
    finished_at: Mapped[str | None] = mapped_column(String(32), default=None)
    message: Mapped[str | None] = mapped_column(Text, default=None)


class Organiser(Base):
    """Someone who runs the server from its admin page: a name and a bearer token,
    stored as the SHA-256 of its text (``revoked_at`` once replaced)."""

    __tablename__ = "organisers"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH), unique=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[str] = mapped_column(String(32))
    revoked_at: Mapped[str | None] = mapped_column(String(32), default=None)


class ServerState(Base):
    """The server's switches that the command line and the admin page change while it
    runs (``ladder_paused``), each with when and by whom it was last set."""

    __tablename__ = "server_state"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[str] = mapped_column(String(32))
    updated_by: Mapped[str] = mapped_column(String(NAME_LENGTH + 16))


class Moderation(Base):
    """One organiser action (an author disabled, a bot withdrawn, the ladder paused):
    who did it, from where (``cli`` or ``admin``), to what, and when."""

    __tablename__ = "moderation"

    id: Mapped[int] = mapped_column(primary_key=True)
    created_at: Mapped[str] = mapped_column(String(32))
    actor: Mapped[str] = mapped_column(String(NAME_LENGTH + 16))
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(String(200))


class WebSession(Base):
    """An author (or an organiser) signed in from a browser: the cookie's value is stored
    hashed, with the token that the session's forms must carry (CSRF)."""

    __tablename__ = "web_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    author_id: Mapped[int | None] = mapped_column(ForeignKey("authors.id"), default=None)
    organiser_id: Mapped[int | None] = mapped_column(ForeignKey("organisers.id"), default=None)
    session_hash: Mapped[str] = mapped_column(String(64), unique=True)
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[str] = mapped_column(String(32))
    expires_at: Mapped[str] = mapped_column(String(32))
