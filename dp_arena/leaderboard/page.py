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
from dp_arena.leaderboard.page_event import (
    absent_part,
    benched_part,
    clairvoyance_part,
    faults_part,
    flow_part,
    hands_part,
    standings_part,
)
from dp_arena.leaderboard.page_scores import (
    competitor_section,
    flagged_note,
    pairwise_table,
    ranking_table,
    ratings_table,
    runs_table,
    separation_table,
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
        competitor_section(index, details, by_name[details["name"]], several=not single)
        for index, details in enumerate(data["competitors"])
    )
    history = history_chart(series, events=len(events), title="Rating (μ − 3σ) after each event")
    adjusted_label = (adjusted["label"] or "adjusted").lower()
    scores = f"""<h2 id="scores">Duplicate scores</h2>
<p class="lead">{text(_score_lead(data))}</p>
{flagged_note(data)}{ranking_table(data)}{_unranked_note(data)}
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
{pairwise_table(data)}
<h2>Separating neighbours</h2>
<p>Deals (each played at all mirrored tables) an event needs to tell each bot from the next
one with {settings["confidence"]:.0%} confidence and 80% power, from the measured variance.</p>
{separation_table(data)}
<h2>Ratings</h2>
{ratings_table(data)}
{history}
<h2>Score distributions</h2>
<p>Each bot's duplicate score per deal block (mbb); the dashed line is zero.</p>
<div class="grid">{histograms}</div>
<h2>Bots</h2>
{sections}
<h2>Runs</h2>
{runs_table(events)}
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
