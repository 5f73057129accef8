"""The parts of the page that tell one event's own story, from its part of the
leaderboard's data (:func:`~dp_arena.leaderboard.event.event_json`): final places and
prizes, the session-by-session flow, faults with their reasons, benched and absent
entrants, the replay pages of its hands. Every value is escaped
(:mod:`dp_arena.leaderboard.html`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dp_arena.leaderboard.charts import text
from dp_arena.leaderboard.hands import history_stem
from dp_arena.leaderboard.html import Cell, money, place, table

__all__ = [
    "absent_part",
    "benched_part",
    "clairvoyance_part",
    "faults_part",
    "flow_part",
    "hands_part",
    "standings_part",
]


def standings_part(event: Mapping[str, Any]) -> str:
    """The final places, prizes and who was out when, best first."""
    rows = []
    for standing in event["standings"]:
        note = ""
        if standing["status"] == "absent":
            note = "absent: never played"
        elif standing["eliminated_in"]:
            note = f"out in session {standing['eliminated_in']}"
        prize = standing["prize_cents"]
        rows.append(
            [
                Cell(place(standing["place"], standing["place_to"]), standing["place"]),
                Cell(standing["player"], standing["player"], "name"),
                Cell(standing["code"], standing["code"], "name code"),
                Cell(money(prize) if prize else "–", prize, "prize" if prize > 0 else ""),
                Cell(
                    note or "–",
                    css="detail" + (" absent" if standing["status"] == "absent" else ""),
                ),
            ]
        )
    headers: list[str | tuple[str, str]] = ["Place", ("Entrant", "name"), ("Code", "name")]
    headers += ["Prize", ("Note", "detail")]
    prizes = event["prizes"]
    entry = ""
    if prizes.get("buy_in_cents") is not None:
        entry = f" (buy-in {money(prizes['buy_in_cents'])}"
        entry += (
            f" + fee {money(prizes['fee_cents'] or 0)} each)" if prizes.get("fee_cents") else ")"
        )
    pool = f"Prize pool {money(prizes['pool_cents'])}{entry}; paid {money(prizes['paid_cents'])}."
    standings = table(headers, rows, identifier="standings", css="standings")
    return f'{standings}<p class="muted">{text(pool)}</p>'


def _chips(value: Any) -> str:
    return "–" if value is None else f"{value:,}"


def _section_table(session: Mapping[str, Any], section: Mapping[str, Any]) -> str:
    rows = []
    carry = bool(session.get("carryover_step"))
    for position in section["seat_positions"]:
        for row in position["players"]:
            absent_seat = row["player"] is None
            went_on = "✓ advanced" if row["advanced"] else ""
            cells = [
                Cell(position["seat"] + 1, position["seat"]),
                Cell(row["rank"]),
                Cell(
                    "(absent seat)" if absent_seat else row["player"],
                    css="name" + (" muted" if absent_seat else ""),
                ),
                Cell(row["table"]),
                Cell(_chips(row["total_chips"]), row["total_chips"]),
                Cell(row["decided_by"] or "–", css="detail"),
                Cell(went_on, css="advanced" if row["advanced"] else ""),
            ]
            if carry:
                cells.append(Cell(_chips(row["carryover_out"]) if row["advanced"] else "–"))
            rows.append(cells)
    headers: list[str | tuple[str, str]] = ["Seat position", "Rank", ("Entrant", "name"), "Table"]
    headers += ["Total chips", ("Below the one above by", "detail"), "Went on"]
    if carry:
        headers.append("Carryover")
    return table(headers, rows, css="flow")


def _went_on_table(session: Mapping[str, Any], section: Mapping[str, Any]) -> str:
    """One row per seat position: who went on (with the carryover each took) and who
    was out."""
    carry = bool(session.get("carryover_step"))
    rows = []
    for position in section["seat_positions"]:
        players = [row for row in position["players"] if row["player"] is not None]
        went_on = [
            f"{row['player']} (+{row['carryover_out']:,})" if carry else str(row["player"])
            for row in players
            if row["advanced"]
        ]
        out = [str(row["player"]) for row in players if not row["advanced"]]
        rows.append(
            [
                Cell(position["seat"] + 1, position["seat"]),
                Cell(", ".join(went_on) or "–", css="detail advanced"),
                Cell(", ".join(out) or "–", css="detail"),
            ]
        )
    went = "Went on (carryover chips)" if carry else "Went on"
    return table(["Seat position", (went, "detail"), ("Out", "detail")], rows, css="flow")


def _section_summary(session: Mapping[str, Any], section: Mapping[str, Any]) -> str:
    advance = section.get("advancing")
    if advance is None:
        went_on = "no one eliminated" if not session.get("final") else "the last session"
    else:
        went_on = f"{advance} of {section['tables']} advance from each seat position"
    absent = f", {section['absent']} absent seats" if section.get("absent") else ""
    return (
        f"Section {section['section']}: {section['tables']} tables × {section['seats']}{absent},"
        f" {section['deals']} deals; {went_on}."
    )


def _round_robin(session: Mapping[str, Any]) -> str:
    places = {}
    position = 1
    for group in session["order"]:
        for player in group:
            places[player] = (position, position + len(group) - 1)
        position += len(group)
    rows = [
        [
            Cell(place(*places.get(row["player"], ("–", "–")))),
            Cell(row["player"], css="name"),
            Cell(_points(row["points"]), row["points"]),
            Cell(row["beaten"] if row["beaten"] is not None else "–"),
        ]
        for row in session["points"]
    ]
    headers: list[str | tuple[str, str]] = [
        "Place",
        ("Entrant", "name"),
        "Points",
        "Players beaten",
    ]
    about = (
        f"Round robin: {session['matches']} mini-matches of heads-up tables,"
        f" {session.get('deals_per_match') or '?'} deals each; points by total chips in each seat"
        " position, then the tie-breakers (docs/formats.md)."
    )
    return f"<p>{text(about)}</p>{table(headers, rows, css='flow')}"


def _points(value: Any) -> str:
    if value is None:
        return "–"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _session_title(session: Mapping[str, Any]) -> str:
    blinds = session.get("blinds") or [None, None]
    rules = ""
    if session.get("betting"):
        rules = f" · capped {session['betting']} {blinds[0]}/{blinds[1]}"
    players = f" · {session['players']} players" if session.get("players") else ""
    if session["kind"] == "round-robin":
        return f"Session {session['session']} · round-robin final{players}{rules}"
    outcome = ""
    if session.get("advancing"):
        outcome = f" · {session['advancing']} went on"
    elif session.get("final"):
        outcome = " · decided the prizes"
    return f"Session {session['session']}{players}{rules}{outcome}"


def flow_part(event: Mapping[str, Any], *, level: str = "h3") -> str:
    """Each session: its sections and who went on from each seat position with the
    carryover they took (every seat position's ranks and chips folded away below); a
    round robin's points."""
    parts = []
    for session in event["sessions"]:
        if session["kind"] == "round-robin":
            body = _round_robin(session)
        else:
            body = ""
            if session.get("carryover_step"):
                step = session["carryover_step"]
                carryover = (
                    f"Carryover: {step:,} chips a place within each seat position (the last"
                    " place none), taken into the next session by those who went on."
                )
                body += f"<p>{text(carryover)}</p>"
            for section in session["sections"]:
                body += f"<p>{text(_section_summary(session, section))}</p>"
                if session.get("advancing") and session.get("eliminated"):
                    body += _went_on_table(session, section)
                body += (
                    '<details class="ranks"><summary>Every seat position by rank, with its'
                    f" chips</summary>{_section_table(session, section)}</details>"
                )
        parts.append(
            f'<section class="session"><{level}>{text(_session_title(session))}</{level}>'
            f"{body}</section>"
        )
    return "".join(parts)


def faults_part(
    faults: Sequence[Mapping[str, Any]], counts: Mapping[str, Mapping[str, int]], total: int
) -> str:
    """How many faults of each kind each entrant had, then every fault listed with its
    reason (as many as the data lists)."""
    if not total:
        return "<p>No faults.</p>"
    summary = table(
        [("Entrant", "name"), "Faults", ("By kind", "detail")],
        [
            [
                Cell(player, css="name"),
                Cell(sum(kinds.values()), sum(kinds.values())),
                Cell(", ".join(f"{kind} {count}" for kind, count in kinds.items()), css="detail"),
            ]
            for player, kinds in counts.items()
        ],
    )
    rows = [
        [
            Cell(fault["player"], css="name"),
            Cell(fault["kind"]),
            Cell(_where(fault)),
            Cell("–" if fault["deal"] is None else int(fault["deal"]) + 1, href=fault.get("hand")),
            Cell(fault.get("street") or "–"),
            Cell(fault.get("detail") or "", css="detail"),
            Cell(fault.get("substituted") or "–"),
        ]
        for fault in faults
    ]
    listed = table(
        [
            ("Entrant", "name"),
            "Kind",
            "Where",
            "Deal",
            "Street",
            ("Reason", "detail"),
            "Played instead",
        ],
        rows,
    )
    more = ""
    if total > len(faults):
        hidden = total - len(faults)
        more = f'<p class="muted">… and {hidden:,} more (every fault is in results.json).</p>'
    return summary + listed + more


def _where(fault: Mapping[str, Any]) -> str:
    if fault.get("session") is None:
        return "–"
    return f"session {fault['session']}, section {fault['section']}, table {fault['table']}"


def hands_part(hands: Mapping[str, Any] | None) -> str:
    """The replay pages of the event's hands, listed by table-session (each section's
    tables share a page; empty when none were written)."""
    if not hands or not hands["pages"]:
        return ""
    rows = [
        [
            Cell(history_stem(page["history"]), href=page["file"]),
            Cell("–" if page["hands"] is None else f"{page['hands']:,}", page["hands"]),
        ]
        for page in hands["pages"]
    ]
    about = (
        "Every hand, street by street: each deal at all the mirrored tables of its section"
        " side by side, the same cards in the same row, stepping together (arrow keys;"
        " Home and End for the blinds and the result; deal to deal with Page Up and Page"
        " Down; or jump to the biggest pots). A fault's deal above opens it."
    )
    missing = len(hands["pages"]) - hands["rendered"]
    more = ""
    if missing:
        more = (
            f'<p class="muted">{missing:,} table-session(s) have no page here: at most'
            f" {hands['max_hands']:,} hand(s) are rendered for one publication;"
            " <code>dp-arena replay --html</code> renders any history file of the run.</p>"
        )
    listing = table(["Table-session", "Hands"], rows)
    count = len(hands["pages"])
    return (
        f"<p>{text(about)}</p><details><summary>{count:,} table-session{'s' * (count != 1)}"
        f"</summary>{listing}</details>{more}"
    )


def benched_part(benched: Sequence[Mapping[str, Any]]) -> str:
    """Who was benched: where, how many deals it sat out, and why."""
    if not benched:
        return "<p>No one was benched.</p>"
    rows = [
        [
            Cell(bench["player"], css="name"),
            Cell(f"session {bench['session']}, section {bench['section']}, table {bench['table']}"),
            Cell(
                "before its first deal" if bench["deal"] is None else f"in deal {bench['deal'] + 1}"
            ),
            Cell(f"{bench['deals_out']:,} of {bench['deals']:,}", bench["deals_out"], "loss"),
            Cell(bench["reason"], css="detail", note=bench.get("detail") or None),
        ]
        for bench in benched
    ]
    headers: list[str | tuple[str, str]] = [
        ("Entrant", "name"),
        "Where",
        "Benched",
        "Deals sat out",
    ]
    headers.append(("Why", "detail"))
    about = (
        "A bot that crashes, cannot load, or reaches the fault limit of a table-session plays"
        " the rest of it as an absent player (it checks or folds): it is still ranked, on"
        " the chips it keeps."
    )
    return f"<p>{text(about)}</p>{table(headers, rows)}"


CLAIRVOYANCE_ABOUT = (
    "Each bot's play is tested against the cards it could not see (docs/rankings.md): its own"
    " first decisions, where nothing an opponent did enters, give z and a p-value valid at any"
    " number of deals, and flag it below one in a million; the table test counts every"
    " decision, which answer what the opponents did, so it flags a clairvoyant at the bot's"
    " tables, itself or an opponent. Built-in bots, the house's own code, are not tested."
)


def _z(value: Any) -> str:
    return "–" if value is None else f"{value:+.2f}"


def clairvoyance_part(entrants: Sequence[Mapping[str, Any]]) -> str:
    """Every tested entrant's clairvoyance test, flagged ones first (empty when the event
    was not tested)."""
    tested = [entrant for entrant in entrants if entrant.get("clairvoyance") is not None]
    if not tested:
        return ""
    tested.sort(key=lambda entrant: (entrant["clairvoyance"]["p"], entrant["player"]))
    rows = []
    for entrant in tested:
        test = entrant["clairvoyance"]
        table_test = test["table"]
        verdict = (
            "FLAGGED"
            if test["flagged"]
            else "at its tables (table test)"
            if table_test["flagged"]
            else "–"
        )
        rows.append(
            [
                Cell(entrant["player"], css="name"),
                Cell(entrant["code"], css="name code"),
                Cell(_z(test["z"]), test["z"], note=f"hole {_z(test['z_hole'])}"),
                Cell(f"{test['p']:.3g}", test["p"], "loss" if test["flagged"] else ""),
                Cell(
                    f"{table_test['p']:.3g}",
                    table_test["p"],
                    note=f"z next {_z(table_test['z_next'])}, river {_z(table_test['z_river'])}",
                ),
                Cell(f"{test['deals']:,}", test["deals"]),
                Cell(verdict, css="detail" + (" loss" if test["flagged"] else "")),
            ]
        )
    headers: list[str | tuple[str, str]] = [("Entrant", "name"), ("Code", "name"), "z", "p"]
    headers += ["Table test p", "Deals", ("Flag", "detail")]
    flagged = sum(1 for entrant in tested if entrant["clairvoyance"]["flagged"])
    verdict = f"{flagged} flagged." if flagged else "No bot flagged."
    return (
        f"<p>{text(CLAIRVOYANCE_ABOUT)} {text(verdict)}</p>"
        f"{table(headers, rows, identifier='clairvoyance')}"
    )


def absent_part(entrants: Sequence[Mapping[str, Any]]) -> str:
    """Entrants the run marked absent, with the reason (empty when there are none)."""
    absent = [entrant for entrant in entrants if entrant["status"] == "absent"]
    if not absent:
        return ""
    rows = [
        [
            Cell(entrant["player"], css="name"),
            Cell(entrant["code"], css="name code"),
            Cell(entrant.get("absent_reason") or "–", css="detail"),
        ]
        for entrant in absent
    ]
    return table([("Entrant", "name"), ("Code", "name"), ("Why it did not play", "detail")], rows)
