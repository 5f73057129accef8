"""An event's own result, as the leaderboard's data: its entrants with their code, the
final places and prizes, the session-by-session flow (sections, who advanced from each
seat position, carryover, the round-robin points), every fault with where it happened,
and who was benched or absent. Read from the run's ``results.json`` and its sessions'
parts (``docs/results.md``); nothing here is computed from anything else.

Entrants are named by player name with their code beside (``entrants[].code``, or for
a run that recorded none, named from the spec without its path: a spec holds the
organiser's paths, and none reaches a published page). An entrant that ``results.json``
marks ``status = "absent"`` is marked with its ``absent_reason``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from dp_arena.ratings.runs import DealBlock, EventRecord
from dp_arena.tournament.benching import benchings
from dp_arena.tournament.code import code_label, entrant_code

__all__ = ["MAX_FAULTS_LISTED", "event_codes", "event_json", "table_deals"]

MAX_FAULTS_LISTED = 200  # per event; the counts by entrant and kind are always complete


def event_codes(event: EventRecord) -> dict[str, dict[str, Any]]:
    """player -> code object: as the run recorded it, else named from the spec."""
    return {
        player: dict(event.codes.get(player) or entrant_code(spec))
        for player, spec in event.entrants
    }


def table_deals(blocks: Sequence[DealBlock]) -> int:
    """How many table-deals ``blocks`` hold: each deal at every table it was dealt at."""
    return sum(len({play.table for play in block.plays}) for block in blocks)


def event_json(event: EventRecord) -> dict[str, Any]:
    """The result of one event (see the module's docstring)."""
    document = event.results
    codes = event_codes(event)
    entrants = [_entrant(item, codes) for item in document.get("entrants", ())]
    marks = {entrant["player"]: entrant for entrant in entrants}
    plans = {plan.get("session"): plan for plan in document.get("plan", {}).get("sessions", ())}
    sessions = list(event.sessions())
    faults = list(_located_faults(sessions)) or [
        {**fault, "session": None, "section": None, "table": None}
        for fault in document.get("faults", ())
    ]
    prizes = document.get("prizes", {})
    planned_prizes = document.get("plan", {}).get("prizes", {})
    event_data = document.get("event", {})
    return {
        "label": event.label,
        "name": event.name,
        "format": event.format,
        "format_title": event_data.get("title") or event.format,
        "seed": event.seed,
        "predictable": event_data.get("predictable"),
        "commitment": event_data.get("commitment"),
        "results_sha256": event.digest,
        "deals": len(event.blocks),
        "table_deals": table_deals(event.blocks),
        "entrants": entrants,
        "clairvoyance": document.get("clairvoyance"),
        "standings": [_standing(standing, marks) for standing in document.get("standings", ())],
        "prizes": {
            "pool_cents": prizes.get("pool_cents", 0),
            "paid_cents": prizes.get("paid_cents", 0),
            "fees_cents": prizes.get("fees_cents", 0),
            "buy_in_cents": planned_prizes.get("buy_in_cents"),
            "fee_cents": planned_prizes.get("fee_cents"),
        },
        "sessions": [
            _session(session, plans.get(session.get("session"), {})) for session in sessions
        ],
        "faults": faults[:MAX_FAULTS_LISTED],
        "fault_total": len(faults),
        "fault_counts": {
            player: dict(sorted(kinds.items())) for player, kinds in sorted(_counts(faults).items())
        },
        "benched": [
            {
                "player": bench.player,
                "session": bench.session,
                "section": bench.section,
                "table": bench.table,
                "seat": bench.seat,
                "deal": bench.deal,
                "deals": bench.deals,
                "deals_out": bench.deals_out,
                "faults": bench.faults,
                "reason": bench.reason,
                "detail": bench.detail,
            }
            for bench in benchings(sessions)
        ],
    }


def _entrant(item: Mapping[str, Any], codes: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    player = str(item.get("player"))
    code = codes.get(player) or {}
    absent = item.get("status") == "absent"
    return {
        "player": player,
        "code": code_label(code),
        "kind": code.get("kind"),
        "sha256": code.get("sha256"),
        "status": "absent" if absent else "played",
        "absent_reason": str(item.get("absent_reason") or "") if absent else None,
        # The run's clairvoyance test (None: a run without it, or a format it skips).
        "clairvoyance": item.get("clairvoyance"),
    }


def _standing(
    standing: Mapping[str, Any], marks: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    player = str(standing.get("player"))
    mark = marks.get(player, {})
    return {
        "place": standing.get("place"),
        "place_to": standing.get("place_to"),
        "player": player,
        "code": mark.get("code", "–"),
        "prize_cents": standing.get("prize_cents", 0),
        "eliminated_in": standing.get("eliminated_in"),
        "status": mark.get("status", "played"),
        "absent_reason": mark.get("absent_reason"),
    }


def _session(session: Mapping[str, Any], plan: Mapping[str, Any]) -> dict[str, Any]:
    common = {
        "session": session.get("session"),
        "kind": session.get("kind"),
        "betting": plan.get("betting"),
        "blinds": [plan.get("small_blind"), plan.get("big_blind")],
        "cap": plan.get("cap"),
        "players": plan.get("players"),
        "final": plan.get("final"),
    }
    if session.get("kind") == "round-robin":
        planned = plan.get("round_robin") or {}
        points = session.get("points", {})
        beaten = session.get("beaten", {})
        order = [list(group) for group in session.get("order", ())]
        return {
            **common,
            "matches": len(session.get("matches", ())),
            "deals_per_match": planned.get("deals_per_match"),
            "order": order,
            "points": [
                {"player": player, "points": points.get(player), "beaten": beaten.get(player)}
                for group in order
                for player in group
            ],
        }
    sections_planned = {item.get("section"): item for item in plan.get("sections", ())}
    return {
        **common,
        "advancing": len(session.get("advancing", ())),
        "eliminated": len(session.get("eliminated", ())),
        "carryover_step": plan.get("carryover_step"),
        "carryover": dict(session.get("carryover", {})),
        "sections": [
            _section(section, sections_planned.get(section.get("section"), {}))
            for section in session.get("sections", ())
        ],
    }


def _section(section: Mapping[str, Any], plan: Mapping[str, Any]) -> dict[str, Any]:
    by_seat: dict[int, list[dict[str, Any]]] = {}
    for row in section.get("players", ()):
        by_seat.setdefault(int(row.get("seat", 0)), []).append(
            {
                "player": row.get("player"),
                "table": row.get("table"),
                "rank": row.get("rank"),
                "total_chips": row.get("total_chips"),
                "session_net": row.get("session_net"),
                "carryover_in": row.get("carryover_in"),
                "decided_by": row.get("decided_by"),
                "advanced": bool(row.get("advanced")),
                "carryover_out": row.get("carryover_out"),
            }
        )
    return {
        "section": section.get("section"),
        "tables": section.get("tables"),
        "seats": section.get("seats"),
        "deals": section.get("deals"),
        "absent": plan.get("absent", 0),
        "advancing": plan.get("advancing"),
        "seat_positions": [
            {"seat": seat, "players": sorted(rows, key=lambda row: row["rank"] or 0)}
            for seat, rows in sorted(by_seat.items())
        ],
    }


def _located_faults(sessions: Sequence[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    for session in sessions:
        groups: list[tuple[Any, Mapping[str, Any]]] = []
        if session.get("kind") == "round-robin":
            groups = [(match.get("match"), match) for match in session.get("matches", ())]
        else:
            groups = [(section.get("section"), section) for section in session.get("sections", ())]
        for number, group in groups:
            for table in group.get("table_results", ()):
                for fault in table.get("faults", ()):
                    yield {
                        "player": fault.get("player"),
                        "kind": fault.get("kind"),
                        "session": session.get("session"),
                        "section": number,
                        "table": table.get("table"),
                        "deal": fault.get("deal"),
                        "street": fault.get("street"),
                        "detail": fault.get("detail"),
                        "substituted": fault.get("substituted"),
                    }


def _counts(faults: Sequence[Mapping[str, Any]]) -> dict[str, Counter[str]]:
    counts: dict[str, Counter[str]] = {}
    for fault in faults:
        counts.setdefault(str(fault.get("player")), Counter())[str(fault.get("kind"))] += 1
    return counts
