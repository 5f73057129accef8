"""The background check of uploaded bots: each archive an author posts is checked by
``dp-arena submit``'s own function (:mod:`dp_arena.sandbox.dealer.submission`: the
archive checks, then the sandboxed conformance check), one at a time, in a thread of
the server. The bot runs in its sandbox, never in the server's process.

Work is found in the database (every submission still ``checking``), so a check cut
short by a restart or a kill -9 runs again when the server starts: the archive stays in
the data folder until its check has decided, and the registry stores the same content
only once.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dp_arena.errors import SubmissionError
from dp_arena.registry import Manifest, Registry
from dp_arena.sandbox.dealer.conformance import CheckReport
from dp_arena.sandbox.dealer.submission import submit
from dp_arena.server import crud
from dp_arena.server.db import Database
from dp_arena.server.models import Author, Bot, now
from dp_arena.server.settings import DataDir
from dp_arena.server.worker import Worker
from dp_arena.text import printable

__all__ = ["ARCHIVE_SUFFIXES", "Checker", "check_submission"]

log = logging.getLogger("dp_arena.server")

# What an upload's Content-Type says it is, and the suffix submit() reads it by.
ARCHIVE_SUFFIXES = {
    "application/zip": ".zip",
    "application/x-zip-compressed": ".zip",
    "application/gzip": ".tar.gz",
    "application/x-gzip": ".tar.gz",
    "application/x-tar": ".tar",
}


def archive_of(data: DataDir, submission_id: int) -> Path | None:
    for suffix in sorted(set(ARCHIVE_SUFFIXES.values())):
        path = data.upload(submission_id, suffix)
        if path.is_file():
            return path
    return None


def _report_json(report: CheckReport, folder: Path) -> dict[str, Any]:
    """The report as authors see it: the server's folders left out of it."""
    text = json.dumps(report.to_json()).replace(str(folder), "<bot>")
    data: dict[str, Any] = json.loads(text)
    data.pop("spec", None)
    return data


def check_submission(
    database: Database, data: DataDir, submission_id: int, *, states: int, betting: str = "no-limit"
) -> str:
    """Check one submission and record what was found; its new status. A ladder of
    ``betting`` other than no-limit refuses an ACPC agent (``unplayable``)."""
    with database.session() as session:
        row = crud.submission(session, submission_id)
        if row is None or row.status != crud.CHECKING:
            return "gone" if row is None else row.status
        author_id = row.author_id
        owner = session.get(Author, author_id)
        owner_name = owner.name if owner is not None else ""
    archive = archive_of(data, submission_id)
    report: dict[str, Any] | None = None
    claimed: dict[str, int] = {}

    def vet(manifest: Manifest) -> None:
        if manifest.protocol == "acpc" and betting != "no-limit":
            raise SubmissionError(
                "unplayable",
                f"this server's ladder plays {betting} hold'em, and an ACPC agent plays"
                " no-limit only (an ACPC game definition has no pot limit)",
            )
        with database.session() as session:
            bot = crud.claim_bot_name(session, manifest.name, author_id)
            if bot is None:
                raise SubmissionError(
                    "name_taken", f"the bot name {manifest.name!r} belongs to another author"
                )
            claimed["bot"] = bot.id

    def on_report(found: CheckReport, folder: Path) -> None:
        nonlocal report
        report = _report_json(found, folder)

    try:
        if archive is None:
            raise SubmissionError("bad_archive", "the uploaded archive is missing")
        outcome = submit(
            archive,
            registry=Registry(data.registry),
            owner=owner_name,
            states=states,
            vet=vet,
            on_report=on_report,
        )
    except SubmissionError as error:
        status = crud.REJECTED
        fields: dict[str, Any] = {"reason": error.reason, "message": printable(error, 2000)}
    else:
        status = crud.ACCEPTED
        # The version's facts are the registry's: the row names it.
        fields = {
            "name": str(outcome["name"]),
            "version": int(str(outcome["version"])),
            "reason": None if outcome["new"] else "unchanged",
            "message": None
            if outcome["new"]
            else f"the same content as {outcome['ref']}, accepted before",
        }
    with database.session() as session:
        row = crud.submission(session, submission_id)
        if row is None:
            return "gone"
        for name, value in fields.items():
            setattr(row, name, value)
        if status == crud.ACCEPTED and not fields["reason"]:
            row.status = crud.ACCEPTED
        elif status == crud.ACCEPTED:
            # The same content again is not a new version: recorded, not laddered twice.
            row.status = crud.REJECTED
        else:
            row.status = status
        row.bot_id = claimed.get("bot", row.bot_id)
        if row.name is None and "bot" in claimed:
            bot = session.get(Bot, claimed["bot"])
            row.name = None if bot is None else bot.name
        row.report = None if report is None else json.dumps(report)
        row.checked_at = now()
        final = row.status
    if archive is not None:
        archive.unlink(missing_ok=True)
    return final


class Checker(Worker):
    """Checks submissions one at a time in a thread; :meth:`wake` after an upload."""

    thread_name = "dp-arena-checks"
    # A check cut short by the stop runs again at the next start: the server does not
    # wait for it to end (its sandboxed bot dies with the server).
    stop_seconds = 2.0

    def __init__(
        self,
        database: Database,
        data: DataDir,
        *,
        states: int,
        betting: str = "no-limit",
        on_accepted: Callable[[], None] | None = None,
    ) -> None:
        self.database = database
        self.data = data
        self.states = states
        self.betting = betting
        self.on_accepted = on_accepted
        super().__init__()

    def _loop(self) -> None:
        while not self._stop.is_set():
            with self.database.session() as session:
                waiting = crud.oldest_checking(session)
                submission_id = None if waiting is None else waiting.id
            if submission_id is None:
                self._idle()
                continue
            try:
                status = check_submission(
                    self.database,
                    self.data,
                    submission_id,
                    states=self.states,
                    betting=self.betting,
                )
            except Exception:  # a broken check must not stop the others
                log.exception("checking submission %s failed", submission_id)
                self._fail(submission_id)
                continue
            log.info("submission %s: %s", submission_id, status)
            if status == crud.ACCEPTED and self.on_accepted is not None:
                self.on_accepted()

    def _fail(self, submission_id: int) -> None:
        with self.database.session() as session:
            row = crud.submission(session, submission_id)
            if row is not None and row.status == crud.CHECKING:
                row.status = crud.REJECTED
                row.reason = "check_error"
                row.message = "the check could not be run; the server's log says why"
                row.checked_at = now()
