"""The leaderboard as Markdown (the ``README.md`` a repository host shows beside the page).

Names come from results and are untrusted: :func:`cell` escapes everything Markdown or
the HTML that Markdown allows could read as markup, so a name shows as the text it is.
"""

from __future__ import annotations

from typing import Any

from dp_arena.text import printable

__all__ = ["cell", "render_markdown"]

# What inline Markdown (GitHub's included) reads as markup inside a table cell or heading.
_MARKDOWN_SPECIAL = "\\`*_[]|~"


def cell(value: Any) -> str:
    """``value`` as literal text inside a Markdown table cell.

    >>> print(cell("<script>alert(1)</script> | *x* [y](z)"))
    &lt;script&gt;alert(1)&lt;/script&gt; \\| \\*x\\* \\[y\\](z)
    """
    escaped = []
    # Line breaks would end the table row: spaces. Any other control or format character
    # (a terminal escape, a bidi override) is shown escaped, never obeyed.
    text = printable(str(value).replace("\r", " ").replace("\n", " ").replace("\t", " "))
    for character in text:
        if character == "&":
            escaped.append("&amp;")
        elif character == "<":
            escaped.append("&lt;")
        elif character == ">":
            escaped.append("&gt;")
        elif character in _MARKDOWN_SPECIAL:
            escaped.append("\\" + character)
        else:
            escaped.append(character)
    return "".join(escaped)


def _mbb(value: float | None) -> str:
    return "–" if value is None else f"{value:+,.1f}"


def _money(cents: int) -> str:
    sign = "−" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


def _table(headers: list[str], rows: list[list[str]], align: list[str]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |"]
    lines.append("|" + "|".join("---:" if side == "r" else ":---" for side in align) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _standings(event: dict[str, Any]) -> list[str]:
    rows = []
    for standing in event["standings"]:
        first, last = standing["place"], standing["place_to"]
        note = ""
        if standing["status"] == "absent":
            note = "**absent**: never played"
        elif standing["eliminated_in"]:
            note = f"out in session {standing['eliminated_in']}"
        rows.append(
            [
                str(first) if first == last else f"{first}–{last}",
                cell(standing["player"]),
                cell(standing["code"]),
                _money(standing["prize_cents"]) if standing["prize_cents"] else "–",
                note,
            ]
        )
    lines = _table(["Place", "Entrant", "Code", "Prize", ""], rows, ["r", "l", "l", "r", "l"])
    prizes = event["prizes"]
    lines += [
        "",
        f"Prize pool {_money(prizes['pool_cents'])}; paid {_money(prizes['paid_cents'])}.",
    ]
    if event["benched"]:
        lines += ["", "Benched (played on as absent players after faults):", ""]
        lines += [
            f"- {cell(bench['player'])}: sat out {bench['deals_out']:,} of {bench['deals']:,}"
            f" deals (session {bench['session']}, table {bench['table']}): {cell(bench['reason'])}"
            for bench in event["benched"]
        ]
    absent = [entrant for entrant in event["entrants"] if entrant["status"] == "absent"]
    if absent:
        lines += ["", "Absent (did not play):", ""]
        lines += [
            f"- {cell(entrant['player'])}: {cell(entrant['absent_reason'] or 'no reason given')}"
            for entrant in absent
        ]
    lines += _clairvoyance_lines(event)
    return lines


def _clairvoyance(test: dict[str, Any] | None) -> str:
    if test is None:
        return "not tested"
    if test["flagged_in"]:
        return "**FLAGGED** (" + cell(", ".join(test["flagged_in"])) + ")"
    if test["table_flagged_in"]:
        return "table (" + cell(", ".join(test["table_flagged_in"])) + ")"
    return f"ok (p ≥ {test['p']:.2g})"


def _clairvoyance_lines(event: dict[str, Any]) -> list[str]:
    tested = [entrant for entrant in event["entrants"] if entrant.get("clairvoyance")]
    if not tested:
        return []
    flagged = [entrant["player"] for entrant in tested if entrant["clairvoyance"]["flagged"]]
    table = [
        entrant["player"]
        for entrant in tested
        if entrant["clairvoyance"]["table"]["flagged"] and not entrant["clairvoyance"]["flagged"]
    ]
    return [
        "",
        "Clairvoyance test (play against the cards a bot could not see): "
        + ("**flagged**: " + cell(", ".join(flagged)) if flagged else "no bot flagged")
        + (f"; a clairvoyant at the tables of {cell(', '.join(table))}" if table else "")
        + f" ({len(tested)} tested).",
    ]


def _deals(data: dict[str, Any]) -> str:
    """``175 deals (648 table-deals)``: each deal at every table it was dealt at."""
    table_deals = data.get("table_deals")
    deals = f"{data['deals']:,} deal{'s' * (data['deals'] != 1)}"
    return deals if table_deals is None else f"{deals} ({table_deals:,} table-deals)"


def render_markdown(data: dict[str, Any], *, links: bool = True) -> str:
    """The Markdown page of leaderboard ``data``; ``links`` to the other published files
    (``index.html``, ``leaderboard.json``), when they are written beside it."""
    settings = data["settings"]
    adjusted = settings["adjusted"]
    applied = adjusted["applied"]
    events = data["events"]
    lines = [f"# {cell(data['title'])}", ""]
    if len(events) == 1:
        event = events[0]
        absent = sum(1 for entrant in event["entrants"] if entrant["status"] == "absent")
        who = f"{len(event['entrants'])} entrants" + (
            f", {absent} of them absent (did not load)" if absent else ""
        )
        lines += [
            f"{cell(event['format_title'])}, {who}, {_deals(event)}.",
            "",
            "## Final standings",
            "",
            *_standings(event),
            "",
            "## Duplicate scores",
            "",
        ]
    about = (
        f"*{cell(adjusted['label'])}*: {cell(adjusted['about'])}"
        if applied
        else f"No adjusted score: {cell(adjusted['reason'])}."
    )
    count = len(events)
    lines += [
        (
            f"{count} event{'s' if count != 1 else ''}, {_deals(data)}. Duplicate score"
            " in milli-big-blinds per deal against the seat position (mbb/deal), with"
            f" {settings['confidence']:.0%} bootstrap intervals over whole deal blocks"
            f" ({settings['resamples']:,} resamples, seed {settings['bootstrap_seed']}); rank"
            f" range and P(1st) from the same resamples. {about}"
            f" Rating: OpenSkill Plackett-Luce (tau = {settings['rating']['tau']}), μ − 3σ."
        ),
        "",
    ]
    if links:
        lines += [
            (
                "Each event's result, who-beats-whom, charts and per-bot details:"
                " [index.html](index.html); the data: [leaderboard.json](leaderboard.json)."
            ),
            "",
        ]
    entrants = "Entrant" if data["ranked_by"] == "player" else "Entrants"
    headers = ["Rank", entrants, "Code", "mbb/deal", "95% CI", "Rank range", "P(1st)"]
    if applied:
        headers += [cell(adjusted["label"]), f"{cell(adjusted['label'])} 95% CI"]
    headers += ["Rating μ−3σ (μ, σ)", "Deals", "Prize", "Faults", "Deals benched"]
    tested = any(row["clairvoyance"] is not None for row in data["ranking"])
    if tested:  # a column only where some competitor was tested (a field of built-ins is not)
        headers.append("Clairvoyance")
    rows = []
    for row in data["ranking"]:
        line = [
            str(row["rank"]),
            cell(row["label"]),
            cell(row["code"]),
            _mbb(row["mbb_per_deal"]),
            f"{_mbb(row['ci'][0])} … {_mbb(row['ci'][1])}",
            "{}–{}".format(*row["rank_interval"]),
            f"{row['p_first']:.1%}",
        ]
        if applied:
            other = row["adjusted"]
            line += [
                _mbb(other["mbb_per_deal"]),
                f"{_mbb(other['ci'][0])} … {_mbb(other['ci'][1])}",
            ]
        rating = row["rating"]
        line += [
            "–"
            if rating is None
            else f"{rating['ordinal']:.2f} ({rating['mu']:.2f}, {rating['sigma']:.2f})",
            f"{row['deals']:,}",
            _money(row["prize_cents"]) if row["prize_cents"] else "–",
            str(sum(row["faults"].values())),
            f"{row['benched_deals']:,}" if row["benched_deals"] else "–",
        ]
        if tested:
            line.append(_clairvoyance(row["clairvoyance"]))
        rows.append(line)
    lines += _table(headers, rows, ["r", "l", "l"] + ["r"] * (len(headers) - 3))
    if data.get("unranked"):
        lines += [
            "",
            (
                "Not ranked (they never played, so they have no score, rating or head-to-head"
                " row; the event's standings place them by its rules):"
            ),
            "",
            *(f"- {cell(row['name'])}: {cell(row['reason'])}" for row in data["unranked"]),
        ]
    labels = {row["name"]: row["label"] for row in data["ranking"]}
    lines += [
        "",
        "## Separating neighbours",
        "",
        (
            "Deals an event needs to tell each bot from the next with"
            f" {settings['confidence']:.0%} confidence and 80% power, from the measured variance."
        ),
        "",
    ]
    adjusted = settings["adjusted"]
    separation = [
        [
            cell(labels.get(row["better"], row["better"])),
            cell(labels.get(row["worse"], row["worse"])),
            _mbb(row["gap_mbb"]),
            f"{row['p_better_beats_worse']:.1%}",
            "–" if row["deals_for_gap"] is None else f"{row['deals_for_gap']:,}",
            f"{row['deals_for_margin']:,}",
            *(
                [
                    "–"
                    if row["adjusted"]["deals_for_gap"] is None
                    else f"{row['adjusted']['deals_for_gap']:,}",
                    f"{row['adjusted']['deals_for_margin']:,}",
                ]
                if adjusted["applied"]
                else []
            ),
        ]
        for row in data["separation"]
    ]
    headers = [
        "Higher",
        "Next",
        "Gap",
        "P(order right)",
        "Deals at the gap",
        f"Deals at {settings['margin_mbb']:g} mbb",
    ]
    if adjusted["applied"]:
        headers += [
            f"{cell(adjusted['label'])}: at the gap",
            f"{cell(adjusted['label'])}: at {settings['margin_mbb']:g} mbb",
        ]
    lines += _table(headers, separation, ["l", "l"] + ["r"] * (len(headers) - 2))
    lines += ["", "## Events", ""]
    lines += _table(
        ["#", "Event", "Format", "Won by", "Deck key", "Deals"],
        [
            [
                str(index),
                cell(event["name"]),
                cell(event["format_title"]),
                cell(", ".join(s["player"] for s in event["standings"] if s["place"] == 1) or "–"),
                f"public seed {event['seed']}" if event["predictable"] else "secret, revealed",
                f"{event['deals']:,}",
            ]
            for index, event in enumerate(events, start=1)
        ],
        ["r", "l", "l", "l", "l", "r"],
    )
    return "\n".join(lines) + "\n"
