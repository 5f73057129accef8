"""House bots: built-in bots the organiser seats on the ladder (``dp-arena serve
--house-bots tag,equity,calling-station``), so that a new server plays from its first
upload, and every author's bot has opponents of known strength.

Each is a bot of the ``house`` author (an author with no token, marked ``house``), named
as the built-in, with an accepted submission per version of the built-in's code: its
``builtin_sha256`` is the content hash of the built-in's file (a built-in is in no bot
registry: the house alone keeps its versions), so a dp-arena whose built-in changed plays
it as a new version (``tag@2``), as an upload of new content would. The
house bots named when the server starts are in the ladder; the others leave it
(withdrawn: their matches and pages stay). They are the house's own code: they play in
the match's process, not sandboxed, and are never checked like an upload.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from dp_arena.agents import BUILTINS, parse_spec
from dp_arena.errors import ConfigError
from dp_arena.server import crud
from dp_arena.server.db import Database
from dp_arena.server.models import Bot, Submission, now

__all__ = ["HOUSE_SPEC", "builtin_hash", "parse_house_bots", "seat_house_bots"]

HOUSE_SPEC = "builtin"  # a house submission's archive_sha256 names no archive: this does


def parse_house_bots(text: str) -> tuple[str, ...]:
    """``"tag,equity"`` -> ``("tag", "equity")``: built-in names, each once."""
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    unknown = [name for name in names if name not in BUILTINS]
    if unknown:
        raise ConfigError(
            f"--house-bots: {', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not a"
            f" built-in bot; choose among {', '.join(BUILTINS)}",
            field="house_bots",
        )
    return names


def builtin_hash(name: str) -> str:
    """SHA-256 of a built-in bot's file: the version of its code."""
    path = Path(str(parse_spec(name).target))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def seat_house_bots(database: Database, names: Sequence[str]) -> list[str]:
    """Put the built-ins ``names`` on the ladder as house bots (each at its current code)
    and take every other house bot off it; the refs of the house bots now on it."""
    seated = []
    with database.session() as session:
        house = crud.house_author(session) if names else None
        if house is None:
            ids = crud.house_ids(session)
            if not ids:
                return []
            (house_id,) = ids
        else:
            house_id = house.id
        for bot in crud.bots_of(session, house_id):
            if bot.name not in names:
                crud.withdraw_bot(session, bot)
        for name in names:
            seated.append(_seat(session, house_id, name))
    return seated


def _seat(session: object, house_id: int, name: str) -> str:
    from sqlalchemy.orm import Session

    assert isinstance(session, Session)
    bot = crud.bot_named(session, name)
    if bot is None:
        bot = Bot(name=name, author_id=house_id, created_at=now())
        session.add(bot)
        session.flush()
    elif bot.author_id != house_id:
        owner = crud.authors(session).get(bot.author_id, "?")
        raise ConfigError(
            f"--house-bots: the bot name {name!r} belongs to the author {owner}; leave it out",
            field="house_bots",
        )
    digest = builtin_hash(name)
    versions = list(crud.submissions_of_bot(session, bot.id))
    for row in versions:
        if row.builtin_sha256 == digest:
            if row.status != crud.ACCEPTED:  # seated again
                row.status, row.withdrawn_at = crud.ACCEPTED, None
            current = row
            break
    else:
        current = Submission(
            author_id=house_id,
            bot_id=bot.id,
            status=crud.ACCEPTED,
            archive_sha256=HOUSE_SPEC,
            archive_bytes=0,
            created_at=now(),
            checked_at=now(),
            name=name,
            version=1 + max((row.version or 0 for row in versions), default=0),
            builtin_sha256=digest,
        )
        session.add(current)
    # One house version in the ladder: the current code's.
    for row in versions:
        if row is not current and row.status == crud.ACCEPTED:
            crud.withdraw(session, row)
    session.flush()
    return str(current.ref)
