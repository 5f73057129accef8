"""Who was benched, and what it cost them: a bot that crashed, could not load or reached
the fault limit of a table-session plays the rest of it as an absent player (see
``docs/formats.md``, Faults). Read from the sessions of ``results.json`` (or their
records, as plain data), so the summary and the published page say the same.

>>> session = {"session": 1, "kind": "sections", "sections": [{"section": 1, "table_results": [
...     {"table": 2, "players": ["alice", "bob"], "deal_nets": [[5, -5]] * 10, "benched": [1],
...      "faults": [{"kind": "ILLEGAL", "player": "bob", "seat": 1, "deal": deal, "street":
...                  "preflop", "detail": "raise 5 is not legal", "substituted": "fold"}
...                 for deal in (0, 1, 2)]}]}]}
>>> [benched] = benchings([session])
>>> benched.player, benched.deals_out, benched.deals, benched.reason, benched.detail
('bob', 7, 10, '3 faults (ILLEGAL x3)', 'raise 5 is not legal')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["BENCHING_KINDS", "Benching", "benchings"]

# Faults that bench a bot at once; any other kind benches it at the fault limit.
BENCHING_KINDS = ("CRASH", "LOAD_TIMEOUT", "LOAD_ERROR")
DETAIL_SHOWN = 160  # characters of the last fault's detail in a reason


@dataclass(frozen=True, slots=True)
class Benching:
    """A bot benched at one table-session: where, in which ``deal`` (counted from 0;
    ``None``: before its first deal), out of how many ``deals``, after how many
    ``faults`` there, and why: ``reason`` in the harness's words (the fault kinds),
    ``detail`` the last fault's own text (the bot's output may be in it: untrusted)."""

    player: str
    session: int
    section: int  # the mini-match, in a round robin
    table: int
    seat: int
    deal: int | None
    deals: int
    faults: int
    reason: str
    detail: str

    @property
    def deals_out(self) -> int:
        """Whole deals it sat out (the deal it was benched in is played on for it)."""
        return self.deals if self.deal is None else self.deals - self.deal - 1


def benchings(sessions: Sequence[Mapping[str, Any]]) -> list[Benching]:
    """Every benching of ``sessions`` (``results.json``'s), in session, section, table
    and seat order."""
    found = []
    for session in sessions:
        for section, table in _tables(session):
            faults_of: dict[int, list[Mapping[str, Any]]] = {}
            for fault in table.get("faults", ()):
                faults_of.setdefault(fault["seat"], []).append(fault)
            for seat in sorted(table.get("benched", ())):
                faults = faults_of.get(seat, [])
                # A benched seat is asked nothing more: its last fault is the one that did it.
                last = faults[-1] if faults else None
                found.append(
                    Benching(
                        player=str(table["players"][seat]),
                        session=session["session"],
                        section=section,
                        table=table["table"],
                        seat=seat,
                        deal=None if last is None else last.get("deal"),
                        deals=len(table.get("deal_nets", ())),
                        faults=len(faults),
                        reason=_reason(faults),
                        detail=_detail(last),
                    )
                )
    return found


def _tables(session: Mapping[str, Any]) -> Iterator[tuple[int, Mapping[str, Any]]]:
    if session.get("kind") == "round-robin":
        for match in session.get("matches", ()):
            for table in match.get("table_results", ()):
                yield match["match"], table
    else:
        for section in session.get("sections", ()):
            for table in section.get("table_results", ()):
                yield section["section"], table


def _reason(faults: Sequence[Mapping[str, Any]]) -> str:
    if not faults:
        return "benched"
    if faults[-1]["kind"] in BENCHING_KINDS:
        return str(faults[-1]["kind"])
    kinds = Counter(str(fault["kind"]) for fault in faults)
    listed = ", ".join(f"{kind} x{count}" for kind, count in sorted(kinds.items()))
    return f"{len(faults)} faults ({listed})"


def _detail(fault: Mapping[str, Any] | None) -> str:
    detail = "" if fault is None else str(fault.get("detail", ""))
    return detail if len(detail) <= DETAIL_SHOWN else detail[: DETAIL_SHOWN - 1] + "…"
