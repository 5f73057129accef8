"""Taking an upload in: its size, its type and its author's rate checked, the archive
kept in the data folder, a submission row made in ``checking``. The check itself runs
later, in the checker's thread (:mod:`dp_arena.server.checks`)."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator

from sqlalchemy.orm import Session

from dp_arena.files import write_atomic
from dp_arena.server import crud
from dp_arena.server.checks import ARCHIVE_SUFFIXES
from dp_arena.server.db import Database
from dp_arena.server.models import Author
from dp_arena.server.settings import ServerSettings

__all__ = ["UploadRefused", "read_limited", "refuse_early", "store_upload"]


class UploadRefused(Exception):
    """Why an upload is not taken: an HTTP status, a reason code and a sentence."""

    def __init__(self, status: int, reason: str, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.status, self.reason, self.message = status, reason, message
        self.retry_after = retry_after


def suffix_for(content_type: str) -> str:
    kind = content_type.split(";")[0].strip().lower()
    suffix = ARCHIVE_SUFFIXES.get(kind)
    if suffix is None:
        raise UploadRefused(
            415,
            "unsupported_type",
            "send the bot as a .zip (Content-Type: application/zip) or a .tar.gz"
            " (application/gzip)",
        )
    return suffix


def refuse_early(settings: ServerSettings, content_length: str | None) -> None:
    """Refuse an upload whose declared length is already too large, before reading it."""
    if content_length is not None:
        try:
            declared = int(content_length)
        except ValueError:
            raise UploadRefused(400, "bad_request", "Content-Length is not a number") from None
        if declared > settings.max_upload_bytes:
            raise too_large(settings)


def too_large(settings: ServerSettings) -> UploadRefused:
    return UploadRefused(
        413, "too_large", f"an upload is at most {settings.max_upload_bytes} bytes"
    )


async def read_limited(stream: AsyncIterator[bytes], settings: ServerSettings) -> bytes:
    """The body, read until it is over the limit (never buffered past it)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in stream:
        size += len(chunk)
        if size > settings.max_upload_bytes:
            raise too_large(settings)
        chunks.append(chunk)
    return b"".join(chunks)


def _check_rate(session: Session, settings: ServerSettings, author: Author) -> None:
    """Refuse an upload over the author's limits, counted in the database (in the
    transaction that adds it, with the author's row taken: see :func:`store_upload`)."""
    if crud.uploads_since(session, author, 1.0) >= settings.uploads_per_hour:
        raise UploadRefused(
            429,
            "rate_limited",
            f"at most {settings.uploads_per_hour} uploads an hour; try again later",
            retry_after=600,
        )
    if crud.checking_count(session, author) >= settings.max_checking:
        raise UploadRefused(
            429,
            "too_many_checking",
            f"{settings.max_checking} of your bots are waiting for their check already",
            retry_after=60,
        )


def store_upload(
    database: Database, settings: ServerSettings, author: Author, body: bytes, suffix: str
) -> int:
    """Keep the archive and make its submission; the submission's id. The author's limits
    are counted and the submission added in one transaction that holds the author's row,
    so that simultaneous uploads of one author are counted one after the other."""
    if not body:
        raise UploadRefused(400, "empty", "the upload is empty")
    digest = hashlib.sha256(body).hexdigest()
    with database.session() as session:
        crud.lock_author(session, author.id)
        _check_rate(session, settings, author)
        submission = crud.add_submission(session, author, digest, len(body))
        # In place before the row is committed: a submission in checking always has its
        # archive (and a refused write leaves no row).
        write_atomic(settings.data.upload(submission.id, suffix), body, durable=True)
        return submission.id
