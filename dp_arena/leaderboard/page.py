"""The leaderboard as one self-contained HTML page: inline CSS, a few lines of inline
JavaScript (sortable tables) and inline SVG charts; nothing is fetched, so the page
works offline and from a file.

Every value from the results is escaped (:func:`~dp_arena.leaderboard.charts.text`), and
a content security policy allows only this page's own style sheet and script (by their
SHA-256), no other script, style, frame or network request: even text that escaped
escaping could not run.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from typing import Any

from dp_arena.leaderboard.charts import (
    ci_chart,
    color,
    distribution_chart,
    history_chart,
    text,
)
from dp_arena.leaderboard.html import Cell, interval, mbb, money, table
from dp_arena.leaderboard.page_event import (
    absent_part,
    benched_part,
    clairvoyance_part,
    faults_part,
    flow_part,
    hands_part,
    standings_part,
)

__all__ = ["render_page"]

STYLE = """
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
  color: #1d1d1f; background: #fafafa; line-height: 1.45; }
main { max-width: 1240px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 1.8em; margin: 0.2em 0 0.1em; overflow-wrap: anywhere; }
h2 { margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { margin-bottom: 0.3em; overflow-wrap: anywhere; }
p { overflow-wrap: anywhere; }
p.lead { color: #444; max-width: 60em; }
.scroll { max-width: 100%; overflow-x: auto; margin: 12px 0; }
table { border-collapse: collapse; background: #fff; font-size: 14px; }
th, td { border: 1px solid #ddd; padding: 5px 9px; text-align: right; vertical-align: top; }
td { white-space: nowrap; }
th { background: #f0f0f3; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th[aria-sort="ascending"]::after { content: " \\25B2"; }
table.sortable th[aria-sort="descending"]::after { content: " \\25BC"; }
.name { text-align: left; white-space: normal; overflow-wrap: break-word;
  min-width: 7em; max-width: 22em; }
.code { color: #555; font-size: 13px; white-space: nowrap; }
.label { min-width: 9em; }
.detail { text-align: left; white-space: normal; max-width: 40em; min-width: 10em;
  overflow-wrap: break-word; }
.note { display: block; color: #666; font-size: 12px; }
.muted { color: #777; }
.prize { font-weight: 600; }
.absent, .loss { color: #a40000; }
.advanced { color: #1b6e2a; }
table.standings tbody tr:has(td.prize) td { background: #fbf6e6; }
.chart { max-width: 100%; height: auto; background: #fff; border: 1px solid #e3e3e3; }
.small { max-width: 100%; height: auto; background: #fff; border: 1px solid #e3e3e3;
  margin: 4px; }
.grid { display: flex; flex-wrap: wrap; }
.hot { background: #d7ecd9; }
.cold { background: #f6dada; }
section.bot, details.event { background: #fff; border: 1px solid #e3e3e3;
  padding: 4px 16px 10px; margin: 14px 0; }
section.session h3, section.session h4 { margin: 1.2em 0 0.2em; }
details.ranks { margin: 4px 0 12px; }
details.ranks > summary { font-weight: normal; color: #333; }
details > summary { cursor: pointer; font-weight: 600; padding: 4px 0; overflow-wrap: anywhere; }
code { background: #f0f0f3; padding: 0 3px; overflow-wrap: anywhere; }
@media (max-width: 640px) {
  main { padding: 12px 10px 40px; }
  h1 { font-size: 1.4em; }
  th, td { padding: 4px 6px; font-size: 13px; }
  .name { min-width: 5em; max-width: 12em; }
  .detail { min-width: 8em; max-width: 18em; }
}
"""

SCRIPT = """
(function () {
  var each = function (list, action) { Array.prototype.forEach.call(list, action); };
  each(document.querySelectorAll("table.sortable"), function (table) {
    var headers = table.tHead.rows[0].cells;
    each(headers, function (header, column) {
      header.addEventListener("click", function () {
        var ascending = header.getAttribute("aria-sort") !== "ascending";
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var key = function (row) {
          var cell = row.cells[column];
          return cell.getAttribute("data-value") || cell.textContent;
        };
        rows.sort(function (a, b) {
          var x = key(a), y = key(b), nx = parseFloat(x), ny = parseFloat(y);
          var order = (isNaN(nx) || isNaN(ny)) ? x.localeCompare(y) : nx - ny;
          return ascending ? order : -order;
        });
        each(headers, function (other) { other.removeAttribute("aria-sort"); });
        header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
  document.documentElement.setAttribute("data-ready", "yes");
})();
"""


def _sha256(source: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode()


def _mbb(value: float | None) -> str:
    return mbb(value)


def _ranking_table(data: dict[str, Any]) -> str:
    adjusted = data["settings"]["adjusted"]
    applied = adjusted["applied"]
    headers: list[str | tuple[str, str]] = [
        "Rank",
        ("Entrant" if data["ranked_by"] == "player" else "Entrants", "name"),
        ("Code", "name"),
        "mbb/deal (95% CI)",
        "Rank range",
        "P(1st)",
    ]
    if applied:
        headers.append(f"{adjusted['label']} (95% CI)")
    headers += ["Rating μ−3σ", "Deals", "Prize", "Faults"]
    # A column only where some competitor was tested (a field of built-ins is not).
    tested = any(row["clairvoyance"] is not None for row in data["ranking"])
    if tested:
        headers.append("Clairvoyance")
    rows = []
    for index, row in enumerate(data["ranking"]):
        cells = [
            Cell(row["rank"], row["rank"]),
            Cell(row["label"], row["label"], "name label", link=f"competitor-{index}"),
            Cell(row["code"], row["code"], "name code"),
            Cell(_mbb(row["mbb_per_deal"]), row["mbb_per_deal"], note=interval(row["ci"])),
            Cell("{}–{}".format(*row["rank_interval"]), row["rank_interval"][0]),
            Cell(f"{row['p_first']:.1%}", row["p_first"]),
        ]
        if applied:
            other = row["adjusted"]
            cells.append(
                Cell(_mbb(other["mbb_per_deal"]), other["mbb_per_deal"], note=interval(other["ci"]))
            )
        rating = row["rating"]
        if rating is None:
            cells.append(Cell("–"))
        else:
            cells.append(
                Cell(
                    f"{rating['ordinal']:.2f}",
                    rating["ordinal"],
                    note=f"μ {rating['mu']:.2f}, σ {rating['sigma']:.2f}",
                )
            )
        faults = sum(row["faults"].values())
        prize = row["prize_cents"]
        benched = row["benched_deals"]
        cells += [
            Cell(f"{row['deals']:,}", row["deals"]),
            Cell(money(prize) if prize else "–", prize),
            Cell(
                faults,
                faults,
                "loss" if benched else "",
                note=f"benched {benched:,} deals" if benched else None,
            ),
        ]
        if tested:
            cells.append(clairvoyance_cell(row["clairvoyance"]))
        rows.append(cells)
    return table(headers, rows, sortable=True, identifier="ranking")


def _flagged_note(data: dict[str, Any]) -> str:
    """A warning above the ranking naming every bot the clairvoyance test flags."""
    flagged = [
        f"{row['label']} (in {', '.join(row['clairvoyance']['flagged_in'])})"
        for row in data["ranking"]
        if row["clairvoyance"] is not None and row["clairvoyance"]["flagged_in"]
    ]
    if not flagged:
        return ""
    return (
        '<p class="loss"><strong>Flagged by the clairvoyance test</strong>: '
        + text(
            "; ".join(flagged) + ". Their first decisions depend on cards they could not see"
            " (p below one in a million); see each event's Clairvoyance part."
        )
        + "</p>\n"
    )


def clairvoyance_cell(test: dict[str, Any] | None) -> Cell:
    """A competitor's clairvoyance tests in one cell: FLAGGED and where, a flag of the table
    test alone, or the smallest p of its own tests."""
    if test is None:
        return Cell("not tested", note="a built-in bot, or a format without mirrored tables")
    if test["flagged_in"]:
        return Cell("FLAGGED", 0, "loss", note=", ".join(test["flagged_in"]))
    if test["table_flagged_in"]:
        return Cell(
            "table", test["p"], note="at its tables: " + ", ".join(test["table_flagged_in"])
        )
    return Cell("ok", test["p"], note=f"p ≥ {test['p']:.2g}")


def _pairwise_table(data: dict[str, Any]) -> str:
    order = data["pairwise"]["order"]
    labels = {row["name"]: row["label"] for row in data["ranking"]}
    headers: list[str | tuple[str, str]] = [("P(row beats column)", "name")]
    headers += [(labels.get(name, name), "name") for name in order]
    rows = []
    for name, values in zip(order, data["pairwise"]["p_beats"], strict=True):
        cells = [Cell(labels.get(name, name), css="name")]
        for value in values:
            if value is None:
                cells.append(Cell("·", css="muted"))
            else:
                css = "hot" if value >= 0.95 else "cold" if value <= 0.05 else ""
                cells.append(Cell(f"{value:.1%}", value, css))
        rows.append(cells)
    return table(headers, rows, identifier="pairwise")


def _separation_table(data: dict[str, Any]) -> str:
    margin = data["settings"]["margin_mbb"]
    adjusted = data["settings"]["adjusted"]
    labels = {row["name"]: row["label"] for row in data["ranking"]}
    rows = []
    for row in data["separation"]:
        cells = [
            Cell(labels.get(row["better"], row["better"]), css="name"),
            Cell(labels.get(row["worse"], row["worse"]), css="name"),
            Cell(_mbb(row["gap_mbb"]), row["gap_mbb"]),
            Cell(f"{row['p_better_beats_worse']:.1%}", row["p_better_beats_worse"]),
            Cell("–" if row["deals_for_gap"] is None else f"{row['deals_for_gap']:,}"),
            Cell(f"{row['deals_for_margin']:,}", row["deals_for_margin"]),
        ]
        if adjusted["applied"]:
            other = row["adjusted"]
            cells.append(
                Cell("–" if other["deals_for_gap"] is None else f"{other['deals_for_gap']:,}")
            )
            cells.append(Cell(f"{other['deals_for_margin']:,}", other["deals_for_margin"]))
        rows.append(cells)
    headers: list[str | tuple[str, str]] = [("Higher", "name"), ("Next", "name"), "Gap"]
    headers += ["P(order right)", "Deals at the gap", f"Deals at {margin:g} mbb"]
    if adjusted["applied"]:
        headers += [f"{adjusted['label']}: at the gap", f"{adjusted['label']}: at {margin:g} mbb"]
    return table(headers, rows)


def _ratings_table(data: dict[str, Any]) -> str:
    rows = [
        [
            Cell(row["bot"], row["bot"], "name"),
            Cell(f"{row['ordinal']:.2f}", row["ordinal"]),
            Cell(f"{row['mu']:.2f}", row["mu"]),
            Cell(f"{row['sigma']:.2f}", row["sigma"]),
            Cell(row["games"], row["games"]),
            Cell(row["events"], row["events"]),
        ]
        for row in data["ratings"]
    ]
    headers: list[str | tuple[str, str]] = [("Bot", "name"), "μ − 3σ", "μ", "σ", "Games", "Events"]
    return table(headers, rows, sortable=True, identifier="ratings")


def _competitor_section(
    index: int, details: dict[str, Any], row: dict[str, Any], *, several: bool
) -> str:
    counts = ", ".join(f"{kind} {count}" for kind, count in row["faults"].items()) or "none"
    spread = row["std_dev_per_deal"]
    summary = (
        f"{_mbb(row['mbb_per_deal'])} mbb/deal over {row['deals']:,} deals"
        f" ({row['plays']:,} plays); standard deviation per deal"
        f" {'–' if spread is None else f'{spread:,.0f}'} mbb; prize money"
        f" {money(row['prize_cents'])}. Faults: {counts}."
    )
    if row["benched_deals"]:
        summary += f" Benched for {row['benched_deals']:,} deals."
    runs: dict[tuple[str, str, str], list[str]] = {}
    for entrant in details["entrants"]:
        key = (entrant["player"], entrant["code"], entrant["status"])
        runs.setdefault(key, []).append(entrant["event_name"])
    headers: list[str | tuple[str, str]] = [("Entrant", "name"), ("Code", "name")]
    if several:
        headers += ["Events", ("In", "detail")]
    entrant_rows = []
    for (player, code, status), names in runs.items():
        cells = [
            Cell(player, css="name", note="absent" if status == "absent" else None),
            Cell(code, css="name code"),
        ]
        if several:
            cells += [Cell(len(names), len(names)), Cell(", ".join(names), css="detail")]
        entrant_rows.append(cells)
    return (
        f'<section class="bot" id="competitor-{index}">'
        f"<h3>{index + 1}. {text(row['label'])}"
        f' <span class="code">{text(row["code"])}</span></h3><p>{text(summary)}</p>'
        f"{table(headers, entrant_rows)}</section>"
    )


def _events_table(events: Sequence[dict[str, Any]]) -> str:
    rows = [
        [
            Cell(index, index),
            Cell(event["name"], css="name"),
            Cell(event["format_title"], css="name"),
            Cell(event["label"], css="name"),
            Cell("public " + str(event["seed"]) if event["predictable"] else "secret, revealed"),
            Cell(event["deals"], event["deals"]),
            Cell(len(event["entrants"]), len(event["entrants"])),
            Cell(event["results_sha256"][:16], css="name code"),
        ]
        for index, event in enumerate(events, start=1)
    ]
    headers: list[str | tuple[str, str]] = ["#", ("Event", "name"), ("Format", "name")]
    headers += [("Run", "name"), "Deck key", "Deals", "Entrants", ("results.json SHA-256", "name")]
    return table(headers, rows)


def _score_lead(data: dict[str, Any]) -> str:
    settings = data["settings"]
    adjusted = settings["adjusted"]
    if adjusted["applied"]:
        adjustment = f"{adjusted['about']} It is shown beside the raw score."
    elif adjusted["key"] is None:
        adjustment = f"No adjusted score: {adjusted['reason']}."
    else:
        adjustment = f"No {adjusted['label'].lower()} score: {adjusted['reason']}."
    unit = "entrant" if data["ranked_by"] == "player" else "bot (its entrants pooled)"
    return (
        f"{_deals(data)}. Each {unit} is scored against the entrants that held the"
        " same cards in the same seat at the mirrored tables: its duplicate score in"
        " milli-big-blinds per deal (mbb/deal). Intervals are"
        f" {settings['confidence']:.0%} percentile bootstrap intervals over whole deal blocks"
        f" ({settings['resamples']:,} resamples, seed {settings['bootstrap_seed']}); the rank"
        f" range and P(1st) come from the same resamples. {adjustment} Ratings: OpenSkill"
        f" Plackett-Luce (τ = {settings['rating']['tau']}) from every seat-position"
        " comparison, ordered by μ − 3σ."
    )


def _deals(data: dict[str, Any]) -> str:
    """``175 deals (648 table-deals)``: each deal at every table it was dealt at."""
    table_deals = data.get("table_deals")
    deals = f"{data['deals']:,} deal{'s' * (data['deals'] != 1)}"
    return deals if table_deals is None else f"{deals} ({table_deals:,} table-deals)"


def _unranked_note(data: dict[str, Any]) -> str:
    """Who is not in the skill rankings, the ratings and the head-to-head tables: those
    that never played, with why."""
    unranked = data.get("unranked") or []
    if not unranked:
        return ""
    items = "".join(f"<li>{text(row['name'])}: {text(row['reason'])}</li>" for row in unranked)
    return (
        '<p class="muted">Not ranked: these never played (they sit out as absent players,'
        " and the event's standings place them by its rules), so they have no score, rating"
        f' or head-to-head row:</p><ul class="unranked">{items}</ul>'
    )


def _event_lead(event: dict[str, Any]) -> str:
    played = sum(1 for entrant in event["entrants"] if entrant["status"] != "absent")
    absent = len(event["entrants"]) - played
    deck = (
        f"public seed {event['seed']}: its decks were predictable"
        if event["predictable"]
        else "dealt from a secret key, committed to before the first deal and revealed in"
        " results.json (dp-arena verify checks every deck)"
    )
    who = f"{len(event['entrants'])} entrants" + (
        f", {absent} of them absent (did not load)" if absent else ""
    )
    return f"{event['format_title']}: {who}, {_deals(event)}; {deck}."


def _event_story(event: dict[str, Any], *, level: str) -> str:
    """The event's own result: places and prizes, the flow, faults, benched, absent."""
    absent = absent_part(event["entrants"])
    parts = [
        f'<{level} id="standings-{text(event["label"])}">Final standings</{level}>',
        standings_part(event),
        f"<{level}>How the event went</{level}>",
        flow_part(event, level="h3" if level == "h2" else "h4"),
        f"<{level}>Faults</{level}>",
        faults_part(event["faults"], event["fault_counts"], event["fault_total"]),
        f"<{level}>Benched</{level}>",
        benched_part(event["benched"]),
    ]
    clairvoyance = clairvoyance_part(event["entrants"])
    if clairvoyance:
        parts += [f"<{level}>Clairvoyance</{level}>", clairvoyance]
    if absent:
        parts += [f"<{level}>Absent</{level}>", absent]
    hands = hands_part(event.get("hands"))
    if hands:
        parts += [f"<{level}>Hands</{level}>", hands]
    return "\n".join(parts)


def _events_part(events: Sequence[dict[str, Any]]) -> str:
    blocks = []
    for event in events:
        winners = [s["player"] for s in event["standings"] if s["place"] == 1]
        head = f"{event['name']} · {event['format_title']}"
        if winners:
            head += f" · won by {', '.join(winners)}"
        blocks.append(
            f'<details class="event"><summary>{text(head)}</summary>'
            f"<p>{text(_event_lead(event))}</p>{_event_story(event, level='h3')}</details>"
        )
    return "".join(blocks)


def render_page(data: dict[str, Any]) -> str:
    """The HTML page of leaderboard ``data`` (:func:`~dp_arena.leaderboard.build_leaderboard`):
    for one event its result first (places and prizes, the flow, faults, benching), then
    the duplicate scores; for several, the scores first, then each event's result."""
    settings = data["settings"]
    adjusted = settings["adjusted"]
    events = data["events"]
    single = len(events) == 1
    # One colour per bot in every chart, in ranking order.
    colors: dict[str, str] = {}
    for row in data["ranking"]:
        colors.setdefault(row["name"], color(len(colors)))
        colors.setdefault(row["bot"], colors[row["name"]])
    ci_rows = []
    for row in data["ranking"]:
        entry = {"name": row["label"], "color": colors[row["name"]], "mean": row["mbb_per_deal"]}
        entry |= {"low": row["ci"][0], "high": row["ci"][1]}
        if adjusted["applied"]:
            other = row["adjusted"]
            entry |= {"adjusted_mean": other["mbb_per_deal"]}
            entry |= {"adjusted_low": other["ci"][0], "adjusted_high": other["ci"][1]}
        ci_rows.append(entry)
    series = [
        (
            row["bot"],
            colors.get(row["bot"]) or color(len(colors) + index),
            [(point["index"], point["ordinal"]) for point in row["history"]],
        )
        for index, row in enumerate(data["ratings"])
    ]
    distributions = data["distributions"]
    labels = {row["name"]: row["label"] for row in data["ranking"]}
    histograms = "".join(
        distribution_chart(labels.get(name, name), distributions["edges"], counts, hue=colors[name])
        for name, counts in distributions["counts"].items()
    )
    by_name = {row["name"]: row for row in data["ranking"]}
    sections = "".join(
        _competitor_section(index, details, by_name[details["name"]], several=not single)
        for index, details in enumerate(data["competitors"])
    )
    history = history_chart(series, events=len(events), title="Rating (μ − 3σ) after each event")
    adjusted_label = (adjusted["label"] or "adjusted").lower()
    scores = f"""<h2 id="scores">Duplicate scores</h2>
<p class="lead">{text(_score_lead(data))}</p>
{_flagged_note(data)}{_ranking_table(data)}{_unranked_note(data)}
{ci_chart(ci_rows, title="Duplicate score with 95% interval", adjusted_label=adjusted_label)}"""
    if single:
        event = events[0]
        lead = _event_lead(event)
        story = f"{_event_story(event, level='h2')}\n{scores}"
    else:
        names = len(events)
        lead = f"{names} events, {_deals(data)}."
        story = f"{scores}\n<h2>The events</h2>\n{_events_part(events)}"
    body = f"""<main>
<h1>{text(data["title"])}</h1>
<p class="lead">{text(lead)}</p>
{story}
<h2>Who beats whom</h2>
<p>The share of bootstrap resamples in which the row's bot scores more than the column's.</p>
{_pairwise_table(data)}
<h2>Separating neighbours</h2>
<p>Deals (each played at all mirrored tables) an event needs to tell each bot from the next
one with {settings["confidence"]:.0%} confidence and 80% power, from the measured variance.</p>
{_separation_table(data)}
<h2>Ratings</h2>
{_ratings_table(data)}
{history}
<h2>Score distributions</h2>
<p>Each bot's duplicate score per deal block (mbb); the dashed line is zero.</p>
<div class="grid">{histograms}</div>
<h2>Bots</h2>
{sections}
<h2>Runs</h2>
{_events_table(events)}
<p class="muted">Published by <code>dp-arena leaderboard publish</code>; the data is in
leaderboard.json.</p>
</main>"""
    policy = (
        "default-src 'none'; img-src data:; "
        f"style-src '{_sha256(STYLE)}'; script-src '{_sha256(SCRIPT)}'; "
        "base-uri 'none'; form-action 'none'"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{text(policy)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{text(data['title'])}</title><style>{STYLE}</style></head>\n"
        f"<body>\n{body}\n<script>{SCRIPT}</script>\n</body></html>\n"
    )
