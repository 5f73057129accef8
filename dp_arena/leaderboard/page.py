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
from dataclasses import dataclass
from typing import Any

from dp_arena.leaderboard.charts import (
    ci_chart,
    color,
    distribution_chart,
    history_chart,
    text,
)

__all__ = ["render_page"]

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
  color: #1d1d1f; background: #fafafa; line-height: 1.45; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 1.8em; margin: 0.2em 0 0.1em; }
h2 { margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { margin-bottom: 0.3em; }
p.lead { color: #444; max-width: 60em; }
table { border-collapse: collapse; margin: 12px 0; background: #fff; font-size: 14px; }
th, td { border: 1px solid #ddd; padding: 5px 9px; text-align: right; vertical-align: top; }
td { white-space: nowrap; }
th { background: #f0f0f3; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th[aria-sort="ascending"]::after { content: " \\25B2"; }
table.sortable th[aria-sort="descending"]::after { content: " \\25BC"; }
.name { text-align: left; white-space: normal; overflow-wrap: anywhere;
  min-width: 8em; max-width: 22em; }
.detail { text-align: left; white-space: normal; max-width: 40em; overflow-wrap: anywhere; }
.muted { color: #777; }
.chart { max-width: 100%; height: auto; background: #fff; border: 1px solid #e3e3e3; }
.small { background: #fff; border: 1px solid #e3e3e3; margin: 4px; }
.grid { display: flex; flex-wrap: wrap; }
.hot { background: #d7ecd9; }
.cold { background: #f6dada; }
section.bot { background: #fff; border: 1px solid #e3e3e3; padding: 4px 16px 10px;
  margin: 14px 0; }
code { background: #f0f0f3; padding: 0 3px; }
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
    return "–" if value is None else f"{value:+,.1f}"


def _interval(pair: Sequence[float | None]) -> str:
    return f"{_mbb(pair[0])} … {_mbb(pair[1])}"


def _money(cents: int) -> str:
    return f"${cents // 100:,}.{cents % 100:02d}"


@dataclass(frozen=True, slots=True)
class Cell:
    """A table cell: ``shown`` as text (escaped), sorted by ``value`` when given, with
    optional CSS classes and an optional link target inside the page."""

    shown: Any
    value: Any = None
    css: str = ""
    link: str | None = None

    def html(self) -> str:
        css = f' class="{self.css}"' if self.css else ""
        value = "" if self.value is None else f' data-value="{text(self.value)}"'
        content = text(self.shown)
        if self.link is not None:
            content = f'<a href="#{text(self.link)}">{content}</a>'
        return f"<td{css}{value}>{content}</td>"


def _table(
    headers: Sequence[str | tuple[str, str]],
    rows: Sequence[Sequence[Cell]],
    *,
    sortable: bool = False,
    identifier: str | None = None,
) -> str:
    """A table; a header given as (text, css class) gets that class."""
    head = "".join(
        f'<th class="{header[1]}">{text(header[0])}</th>'
        if isinstance(header, tuple)
        else f"<th>{text(header)}</th>"
        for header in headers
    )
    body = "".join("<tr>" + "".join(cell.html() for cell in row) + "</tr>" for row in rows)
    attributes = (' class="sortable"' if sortable else "") + (
        f' id="{identifier}"' if identifier else ""
    )
    return f"<table{attributes}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _ranking_table(data: dict[str, Any]) -> str:
    equity = data["settings"]["equity"]
    headers: list[str | tuple[str, str]] = [
        "Rank",
        ("Bot" if data["ranked_by"] == "bot" else "Player", "name"),
    ]
    headers += ["mbb/deal", "95% CI", "Rank range", "P(1st)"]
    if equity:
        headers += ["All-in adjusted", "Adjusted 95% CI"]
    headers += ["Rating μ−3σ (μ, σ)", "Deals", "Faults"]
    rows = []
    for index, row in enumerate(data["ranking"]):
        cells = [
            Cell(row["rank"], row["rank"]),
            Cell(row["name"], row["name"], "name", link=f"competitor-{index}"),
            Cell(_mbb(row["mbb_per_deal"]), row["mbb_per_deal"]),
            Cell(_interval(row["ci"]), row["ci"][0]),
            Cell("{}–{}".format(*row["rank_interval"]), row["rank_interval"][0]),
            Cell(f"{row['p_first']:.1%}", row["p_first"]),
        ]
        if equity:
            adjusted = row["equity"]
            cells.append(Cell(_mbb(adjusted["mbb_per_deal"]), adjusted["mbb_per_deal"]))
            cells.append(Cell(_interval(adjusted["ci"]), adjusted["ci"][0]))
        rating = row["rating"]
        if rating is None:
            cells.append(Cell("–"))
        else:
            shown = f"{rating['ordinal']:.2f} ({rating['mu']:.2f}, {rating['sigma']:.2f})"
            cells.append(Cell(shown, rating["ordinal"]))
        faults = sum(row["faults"].values())
        cells += [Cell(f"{row['deals']:,}", row["deals"]), Cell(faults, faults)]
        rows.append(cells)
    return _table(headers, rows, sortable=True, identifier="ranking")


def _pairwise_table(data: dict[str, Any]) -> str:
    order = data["pairwise"]["order"]
    headers: list[str | tuple[str, str]] = [("P(row beats column)", "name")]
    headers += [(name, "name") for name in order]
    rows = []
    for name, values in zip(order, data["pairwise"]["p_beats"], strict=True):
        cells = [Cell(name, css="name")]
        for value in values:
            if value is None:
                cells.append(Cell("·", css="muted"))
            else:
                css = "hot" if value >= 0.95 else "cold" if value <= 0.05 else ""
                cells.append(Cell(f"{value:.1%}", value, css))
        rows.append(cells)
    return _table(headers, rows)


def _separation_table(data: dict[str, Any]) -> str:
    margin = data["settings"]["margin_mbb"]
    rows = [
        [
            Cell(row["better"], css="name"),
            Cell(row["worse"], css="name"),
            Cell(_mbb(row["gap_mbb"]), row["gap_mbb"]),
            Cell(f"{row['p_better_beats_worse']:.1%}", row["p_better_beats_worse"]),
            Cell("–" if row["deals_for_gap"] is None else f"{row['deals_for_gap']:,}"),
            Cell(f"{row['deals_for_margin']:,}", row["deals_for_margin"]),
        ]
        for row in data["separation"]
    ]
    headers: list[str | tuple[str, str]] = [("Higher", "name"), ("Next", "name"), "Gap"]
    headers += ["P(order right)", "Deals at the gap", f"Deals at {margin:g} mbb"]
    return _table(headers, rows)


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
    return _table(headers, rows, sortable=True, identifier="ratings")


def _competitor_section(index: int, details: dict[str, Any], row: dict[str, Any]) -> str:
    counts = ", ".join(f"{kind} {count}" for kind, count in row["faults"].items()) or "none"
    spread = row["std_dev_per_deal"]
    summary = (
        f"{_mbb(row['mbb_per_deal'])} mbb/deal over {row['deals']:,} deals"
        f" ({row['plays']:,} plays); standard deviation per deal"
        f" {'–' if spread is None else f'{spread:,.0f}'} mbb; prize money"
        f" {_money(row['prize_cents'])}. Faults: {counts}."
    )
    runs: dict[tuple[str, str], list[str]] = {}
    for entrant in details["entrants"]:
        runs.setdefault((entrant["player"], entrant["spec"]), []).append(entrant["event"])
    entrants = _table(
        [("Entrant", "name"), ("Agent spec", "name"), "Runs", ("In", "detail")],
        [
            [
                Cell(player, css="name"),
                Cell(spec, css="name"),
                Cell(len(labels), len(labels)),
                Cell(", ".join(labels), css="detail"),
            ]
            for (player, spec), labels in runs.items()
        ],
    )
    faults = ""
    if details["faults"]:
        faults = _table(
            [
                ("Run", "name"),
                ("Player", "name"),
                "Kind",
                "Deal",
                "Street",
                ("Detail", "detail"),
                "Played instead",
            ],
            [
                [
                    Cell(f["event"], css="name"),
                    Cell(f["player"], css="name"),
                    Cell(f["kind"]),
                    Cell("–" if f["deal"] is None else f["deal"]),
                    Cell(f["street"] or "–"),
                    Cell(f["detail"], css="detail"),
                    Cell(f["substituted"] or "–"),
                ]
                for f in details["faults"]
            ],
        )
        more = details["fault_total"] - len(details["faults"])
        if more > 0:
            faults += f'<p class="muted">… and {more} more (see the runs\' logs).</p>'
    return (
        f'<section class="bot" id="competitor-{index}">'
        f"<h3>{index + 1}. {text(details['name'])}</h3><p>{text(summary)}</p>"
        f"{entrants}{faults}</section>"
    )


def _events_table(events: Sequence[dict[str, Any]]) -> str:
    rows = [
        [
            Cell(index, index),
            Cell(event["label"], css="name"),
            Cell(event["name"], css="name"),
            Cell(event["format"], css="name"),
            Cell(event["seed"], event["seed"]),
            Cell(event["deals"], event["deals"]),
            Cell(event["entrants"], event["entrants"]),
            Cell(event["results_sha256"][:16], css="name"),
        ]
        for index, event in enumerate(events, start=1)
    ]
    headers: list[str | tuple[str, str]] = ["#", ("Run", "name"), ("Event", "name")]
    headers += [("Format", "name"), "Seed", "Deals", "Entrants", ("results.json SHA-256", "name")]
    return _table(headers, rows)


def _lead(data: dict[str, Any]) -> str:
    settings = data["settings"]
    events = len(data["events"])
    adjustment = (
        "The all-in adjusted score replaces every all-in before the river by its exact"
        " equity over the remaining boards."
        if settings["equity"]
        else "No all-in adjustment: the runs kept no deal records."
    )
    return (
        f"{events} event{'s' if events != 1 else ''}, {data['deals']:,} deals. Each bot is"
        " scored against the bots that held the same cards in the same seat at the mirrored"
        " tables: its duplicate score in milli-big-blinds per deal (mbb/deal). Intervals are"
        f" {settings['confidence']:.0%} percentile bootstrap intervals over whole deal blocks"
        f" ({settings['resamples']:,} resamples, seed {settings['bootstrap_seed']}); the rank"
        f" range and P(1st) come from the same resamples. {adjustment} Ratings: OpenSkill"
        f" Plackett-Luce (τ = {settings['rating']['tau']}) from every seat-position"
        " comparison, ordered by μ − 3σ."
    )


def render_page(data: dict[str, Any]) -> str:
    """The HTML page of leaderboard ``data`` (:func:`~dp_arena.leaderboard.build_leaderboard`)."""
    settings = data["settings"]
    # One colour per bot in every chart, in ranking order.
    colors: dict[str, str] = {}
    for row in data["ranking"]:
        colors.setdefault(row["name"], color(len(colors)))
        colors.setdefault(row["bot"], colors[row["name"]])
    ci_rows = []
    for row in data["ranking"]:
        entry = {"name": row["name"], "color": colors[row["name"]], "mean": row["mbb_per_deal"]}
        entry |= {"low": row["ci"][0], "high": row["ci"][1]}
        if settings["equity"]:
            adjusted = row["equity"]
            entry |= {"equity_mean": adjusted["mbb_per_deal"]}
            entry |= {"equity_low": adjusted["ci"][0], "equity_high": adjusted["ci"][1]}
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
    histograms = "".join(
        distribution_chart(name, distributions["edges"], counts, hue=colors[name])
        for name, counts in distributions["counts"].items()
    )
    by_name = {row["name"]: row for row in data["ranking"]}
    sections = "".join(
        _competitor_section(index, details, by_name[details["name"]])
        for index, details in enumerate(data["competitors"])
    )
    history = history_chart(
        series, events=len(data["events"]), title="Rating (μ − 3σ) after each event"
    )
    body = f"""<main>
<h1>{text(data["title"])}</h1>
<p class="lead">{text(_lead(data))}</p>
<h2>Ranking</h2>
{_ranking_table(data)}
{ci_chart(ci_rows, title="Duplicate score with 95% interval")}
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
<h2>Events</h2>
{_events_table(data["events"])}
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
