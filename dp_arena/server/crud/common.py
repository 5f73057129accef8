"""What the queries share: the statuses and names the tables hold, and two helpers."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from sqlalchemy.orm import Session

__all__ = [
    "ACCEPTED",
    "AUTHOR_NAME",
    "CHECKING",
    "FINISHED",
    "HOUSE",
    "LADDER_PAUSED",
    "PLAYING",
    "REJECTED",
    "SCHEDULED",
    "VOID",
    "WITHDRAWN",
]


AUTHOR_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
CHECKING, ACCEPTED, REJECTED, WITHDRAWN = "checking", "accepted", "rejected", "withdrawn"
HOUSE = "house"  # the author of the house bots
LADDER_PAUSED = "ladder_paused"  # a server_state key: "yes" while the ladder is paused
SCHEDULED, PLAYING, FINISHED, VOID = "scheduled", "playing", "finished", "void"

Row = TypeVar("Row")


def stamp(delta: timedelta = timedelta()) -> str:
    """Now (plus ``delta``) as the tables write a time: UTC to the second."""
    return (datetime.now(UTC) + delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def inserted(session: Session, row: Row) -> Row:
    """``row`` added and flushed: its id is known from now on."""
    session.add(row)
    session.flush()
    return row
