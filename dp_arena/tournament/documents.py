"""The JSON documents of a run directory: the summary (``results.json``) and one part per
session (``sessions/session-N.jsonl``), made in one pass over the records.

A session's part is JSON Lines, one compact object per line, keys sorted, so that a
reader can stream it one table at a time whatever the event's size:

- ``{"record": "session", ...}``: the session's own fields (who advanced, carryover,
  round-robin points, ...), without its sections or matches;
- ``{"record": "section", ...}`` (a session of sections) or ``{"record": "match", ...}``
  (a round robin): each section's or mini-match's fields, without its tables;
- ``{"record": "table", ...}``: each of its tables, right after it.

Joined again (:func:`session_from_records`), the records are exactly the session's
object as :func:`plain_session` gives it. The summary is indented JSON where that keeps
lines short and one compact item per line where a list or object is long
(:func:`summary_text`): an entrant, a standing, a fault is one line, so a summary of
100,000 entrants is still a file of lines. Both are written as they are made, a line or
a row at a time (:func:`session_part_lines`, :func:`summary_pieces`).
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

from dp_arena.results import session_from_records
from dp_arena.tournament.outcomes import (
    EntrantTotals,
    MatchOutcome,
    PlayerSession,
    RoundRobinOutcome,
    SectionOutcome,
    SessionOutcome,
    TableOutcome,
)

__all__ = [
    "entrant_totals",
    "plain",
    "plain_session",
    "session_from_records",
    "session_part_lines",
    "session_part_text",
    "session_records",
    "summary_pieces",
    "summary_text",
]

# A summary's container is written on one line when it fits in this many characters.
WIDTH = 100

_FIELDS: dict[type, tuple[str, ...] | None] = {}
_SCALARS = (str, int, float, bool, type(None))


def _player_session(row: PlayerSession) -> dict[str, Any]:
    return {
        "player": row.player,
        "table": row.table,
        "seat": row.seat,
        "starting_chips": row.starting_chips,
        "carryover_in": row.carryover_in,
        "session_net": row.session_net,
        "total_chips": row.total_chips,
        "round_nets": list(row.round_nets),
        "rank": row.rank,
        "decided_by": row.decided_by,
        "advanced": row.advanced,
        "carryover_out": row.carryover_out,
    }


def _table_outcome(table: TableOutcome) -> dict[str, Any]:
    return {
        "table": table.table,
        "players": list(table.players),
        "deal_nets": [list(nets) for nets in table.deal_nets],
        "faults": [plain(fault) for fault in table.faults],
        "benched": list(table.benched),
    }


# The records a session's part has one of for every seat and every table, made field by
# field: what the general way below makes of them, without a call for every value.
_BY_HAND: dict[type, Callable[[Any], dict[str, Any]]] = {
    PlayerSession: _player_session,
    TableOutcome: _table_outcome,
}


def plain(value: Any) -> Any:
    """JSON data of records, in one pass: dataclasses as objects of their fields, enums
    as their values, tuples as lists, dict keys as text, and points (fractions) as
    integers, or as decimals when they are halves (quarters...), else as text."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    by_hand = _BY_HAND.get(kind)
    if by_hand is not None:
        return by_hand(value)
    names = _FIELDS.get(kind, ())
    if names == ():
        names = _FIELDS[kind] = (
            tuple(field.name for field in dataclasses.fields(value))
            if dataclasses.is_dataclass(value) and not isinstance(value, type)
            else None
        )
    if names is not None:
        return {name: plain(getattr(value, name)) for name in names}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return value.numerator
        if value.denominator & (value.denominator - 1) == 0:  # a power of two: exact as a float
            return float(value)
        return str(value)
    return value


def plain_session(outcome: SessionOutcome | RoundRobinOutcome) -> dict[str, Any]:
    """A session's outcome as JSON, its per-player pairs as objects keyed by player."""
    data: dict[str, Any] = plain(outcome)
    for key in ("carryover", "points", "beaten"):
        if key in data:
            data[key] = dict(data[key])
    return data


def session_records(session: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The records of a session's part, from its object (:func:`plain_session`)."""
    groups_key, group_kind = (
        ("matches", "match") if session.get("kind") == "round-robin" else ("sections", "section")
    )
    number = session["session"]
    yield {"record": "session", **{k: v for k, v in session.items() if k != groups_key}}
    for group in session.get(groups_key, ()):
        yield {
            "record": group_kind,
            "session": number,
            **{key: value for key, value in group.items() if key != "table_results"},
        }
        for table in group.get("table_results", ()):
            yield {"record": "table", "session": number, group_kind: group[group_kind], **table}


def _line(record: Mapping[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def session_part_text(session: Mapping[str, Any]) -> str:
    """The JSON Lines text of a session's part."""
    return "".join(_line(record) + "\n" for record in session_records(session))


def session_part_lines(outcome: SessionOutcome | RoundRobinOutcome) -> Iterator[str]:
    """The lines of a session's part, made from its outcome a table at a time: the text
    of :func:`session_part_text` of its object, without the whole object or text."""
    groups: Sequence[SectionOutcome | MatchOutcome]
    if isinstance(outcome, RoundRobinOutcome):
        key, groups = "matches", outcome.matches
        session = plain_session(dataclasses.replace(outcome, matches=()))
    else:
        key, groups = "sections", outcome.sections
        session = plain_session(dataclasses.replace(outcome, sections=()))
    session[key] = (
        {
            **plain(dataclasses.replace(group, table_results=())),
            "table_results": map(plain, group.table_results),
        }
        for group in groups
    )
    for record in session_records(session):
        yield _line(record) + "\n"


def entrant_totals(
    players: Sequence[str], sessions: Iterable[SessionOutcome | RoundRobinOutcome]
) -> list[dict[str, Any]]:
    """Each entrant's totals over ``sessions``, in entrant order (:class:`EntrantTotals`)."""
    totals = EntrantTotals(players)
    for outcome in sessions:
        totals.add(outcome)
    return totals.rows()


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))


def summary_text(document: Mapping[str, Any]) -> str:
    """``document`` (plain JSON data) as the summary's text: each object or list on one
    line when it fits in :data:`WIDTH` characters; else an object's keys one a line, and
    a list's items one a line, each whole (a list of rows: entrants, standings, faults)."""
    return "".join(summary_pieces(document))


def summary_pieces(document: Mapping[str, Any]) -> Iterator[str]:
    """The text of :func:`summary_text` in pieces, a row at a time, for writing as they
    come: a big event's summary is never whole in memory."""
    yield from _pieces(document, 0)
    yield "\n"


def _pieces(value: Any, depth: int) -> Iterator[str]:
    if not isinstance(value, (dict, list)) or not value:
        yield _compact(value)
        return
    room = WIDTH - 2 * depth
    # A container with more items than the line has room for never fits: skip the try.
    if depth and len(value) * 2 <= room:
        compact = _compact(value)
        if len(compact) <= room:
            yield compact
            return
    inner = "\n" + "  " * (depth + 1)
    if isinstance(value, dict):
        yield "{"
        for index, key in enumerate(sorted(value)):
            yield ("," if index else "") + inner + json.dumps(key, ensure_ascii=False) + ": "
            yield from _pieces(value[key], depth + 1)
        yield "\n" + "  " * depth + "}"
        return
    yield "["  # a long list: one item a line, each item whole (a row)
    for index, item in enumerate(value):
        yield ("," if index else "") + inner + _compact(item)
    yield "\n" + "  " * depth + "]"
