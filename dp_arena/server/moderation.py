"""What an organiser does to a running server: list its authors and bots, disable an
author (or enable it again), withdraw a bot, pause and resume the ladder. The command
line (``dp-arena server ...``) and the admin page (``/admin``) call these same
functions; each records who did it in the moderation log, and deletes nothing.

- **Disable an author**: its tokens and browser sessions stop working, its bots leave the
  ladder (a match already playing is played to its end), and every row stays: its
  matches, scores and pages are still there. Enabling it again puts its bots back.
- **Withdraw a bot**: every accepted version of it, and any still waiting for its check,
  is withdrawn, as its author could: it leaves the ladder, its pages stay.
- **Pause the ladder**: no new match starts (one playing is played to its end) until it
  is resumed; uploads are still taken and checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from dp_arena.errors import ConfigError
from dp_arena.server import crud
from dp_arena.server.db import Database
from dp_arena.server.views import time_text

__all__ = [
    "authors_table",
    "bots_table",
    "command_line",
    "ladder_state",
    "set_author_disabled",
    "set_ladder_paused",
    "withdraw_bot",
]


def authors_table(session: Session) -> list[dict[str, Any]]:
    """Every author: name, since when, whether disabled or the house, its bots (and how
    many are in the ladder) and submissions."""
    entries = crud.current_entries(session)
    in_ladder: dict[int, int] = {}
    for entry in entries:
        in_ladder[entry.author_id] = in_ladder.get(entry.author_id, 0) + 1
    rows = []
    for author in crud.all_authors(session):
        bots = crud.bots_of(session, author.id)
        rows.append(
            {
                "name": author.name,
                "created": time_text(author.created_at),
                "house": author.house,
                "disabled": time_text(author.disabled_at),
                "bots": len(bots),
                "in_ladder": in_ladder.get(author.id, 0),
                "submissions": len(crud.submissions_of_author(session, author.id, limit=10_000)),
            }
        )
    return rows


def bots_table(session: Session) -> list[dict[str, Any]]:
    """Every bot: name, author, house or not, its newest version and whether (and as
    which version) it is in the ladder."""
    authors = crud.authors(session)
    house = crud.house_ids(session)
    entries = {entry.bot_id: entry for entry in crud.current_entries(session)}
    rows = []
    for bot in crud.bots_of(session):
        versions = crud.submissions_of_bot(session, bot.id)
        newest = next((row for row in versions if row.version is not None), None)
        entry = entries.get(bot.id)
        rows.append(
            {
                "name": bot.name,
                "author": authors.get(bot.author_id, ""),
                "house": bot.author_id in house,
                "versions": sum(1 for row in versions if row.version is not None),
                "newest": None if newest is None else newest.ref,
                "newest_status": None if newest is None else newest.status,
                "in_ladder": None if entry is None else entry.ref,
            }
        )
    return rows


def set_author_disabled(database: Database, name: str, disabled: bool, *, actor: str) -> str:
    """Disable (or enable) the author ``name``; a sentence saying what happened."""
    with database.session() as session:
        author = crud.author_named(session, name)
        if author is None:
            raise ConfigError(f"there is no author named {name!r}", field="name")
        changed = crud.set_author_disabled(session, author, disabled)
        word = "disabled" if disabled else "enabled"
        if not changed:
            return f"{name} was {word} already"
        crud.moderate(session, actor, "disable-author" if disabled else "enable-author", name)
        bots = len(crud.bots_of(session, author.id))
    if disabled:
        return (
            f"{name} is disabled: its tokens and sessions no longer work, its {bots} bot(s)"
            " left the ladder; nothing was deleted"
        )
    return f"{name} is enabled again: its tokens work and its bots are back in the ladder"


def withdraw_bot(database: Database, name: str, *, actor: str) -> str:
    """Withdraw every accepted (or waiting) version of the bot ``name``."""
    with database.session() as session:
        bot = crud.bot_named(session, name)
        if bot is None:
            raise ConfigError(f"there is no bot named {name!r}", field="name")
        rows = crud.withdraw_bot(session, bot)
        if not rows:
            return f"{name} has no version in the ladder or waiting for its check"
        crud.moderate(session, actor, "withdraw-bot", name)
        refs = ", ".join(row.ref or f"submission {row.id}" for row in rows)
    return f"{name} withdrawn ({refs}): it left the ladder; its matches and pages stay"


def set_ladder_paused(database: Database, paused: bool, *, actor: str) -> str:
    with database.session() as session:
        if crud.ladder_paused(session) == paused:
            return f"the ladder was {'paused' if paused else 'running'} already"
        crud.set_state(session, crud.LADDER_PAUSED, "yes" if paused else "no", actor)
        crud.moderate(session, actor, "pause-ladder" if paused else "resume-ladder", "ladder")
    if paused:
        return "the ladder is paused: no new match starts (one playing is played to its end)"
    return "the ladder runs again"


def ladder_state(session: Session) -> dict[str, Any]:
    """Whether the ladder is paused, since when and by whom."""
    row = crud.state(session, crud.LADDER_PAUSED)
    paused = row is not None and row.value == "yes"
    return {
        "paused": paused,
        "since": None if row is None else time_text(row.updated_at),
        "by": None if row is None else row.updated_by,
    }


def command_line(database: Database, action: str, name: str | None) -> list[str]:
    """The lines ``dp-arena server ACTION [NAME]`` prints: what the organiser's action
    did, or the table it lists (what the admin page shows)."""
    actor = "cli"
    if action in ("disable-author", "enable-author"):
        assert name is not None
        return [set_author_disabled(database, name, action == "disable-author", actor=actor)]
    if action == "withdraw-bot":
        assert name is not None
        return [withdraw_bot(database, name, actor=actor)]
    if action in ("pause-ladder", "resume-ladder"):
        return [set_ladder_paused(database, action == "pause-ladder", actor=actor)]
    header: tuple[str, ...]
    lines: list[tuple[str, ...]]
    with database.session() as session:
        if action == "authors":
            rows = authors_table(session)
            header = ("author", "since (UTC)", "bots", "in ladder", "submissions", "state")
            lines = [
                (
                    row["name"],
                    (row["created"] or "").replace("T", " ").removesuffix("Z"),
                    str(row["bots"]),
                    str(row["in_ladder"]),
                    str(row["submissions"]),
                    "house" if row["house"] else "disabled" if row["disabled"] else "active",
                )
                for row in rows
            ]
            ladder = ladder_state(session)
            running = "paused" if ladder["paused"] else "running"
            footer = f"{len(rows)} author(s); the ladder is {running}"
        else:
            rows = bots_table(session)
            header = ("bot", "author", "versions", "newest (status)", "in the ladder as")
            lines = [
                (
                    row["name"] + (" (house)" if row["house"] else ""),
                    row["author"],
                    str(row["versions"]),
                    f"{row['newest'] or '-'} ({row['newest_status'] or '-'})",
                    row["in_ladder"] or "-",
                )
                for row in rows
            ]
            footer = (
                f"{len(rows)} bot(s), {sum(1 for row in rows if row['in_ladder'])} in the ladder"
            )
    return [*_table(header, lines), footer]


def _table(header: tuple[str, ...], lines: Sequence[tuple[str, ...]]) -> list[str]:
    """Columns as wide as their widest cell, two spaces apart."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *lines, strict=True)]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in (header, *lines)
    ]
