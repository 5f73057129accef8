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


def _table(headers: list[str], rows: list[list[str]], align: list[str]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |"]
    lines.append("|" + "|".join("---:" if side == "r" else ":---" for side in align) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def render_markdown(data: dict[str, Any]) -> str:
    """The Markdown page of leaderboard ``data``."""
    settings = data["settings"]
    equity = settings["equity"]
    events = len(data["events"])
    lines = [
        f"# {cell(data['title'])}",
        "",
        f"{events} event{'s' if events != 1 else ''}, {data['deals']:,} deals. Duplicate score in"
        " milli-big-blinds per deal against the seat position (mbb/deal), with"
        f" {settings['confidence']:.0%} bootstrap intervals over whole deal blocks"
        f" ({settings['resamples']:,} resamples, seed {settings['bootstrap_seed']}); rank range and"
        " P(1st) from the same resamples."
        + (
            " *All-in adjusted*: every all-in before the river scored by its exact equity."
            if equity
            else ""
        )
        + f" Rating: OpenSkill Plackett-Luce (tau = {settings['rating']['tau']}), μ − 3σ.",
        "",
        (
            "Charts, who-beats-whom and per-bot details: [index.html](index.html);"
            " the data: [leaderboard.json](leaderboard.json)."
        ),
        "",
    ]
    headers = ["Rank", "Bot" if data["ranked_by"] == "bot" else "Player", "mbb/deal", "95% CI"]
    headers += ["Rank range", "P(1st)"]
    if equity:
        headers += ["All-in adjusted", "Adjusted 95% CI"]
    headers += ["Rating μ−3σ (μ, σ)", "Deals", "Faults"]
    rows = []
    for row in data["ranking"]:
        line = [
            str(row["rank"]),
            cell(row["name"]),
            _mbb(row["mbb_per_deal"]),
            f"{_mbb(row['ci'][0])} … {_mbb(row['ci'][1])}",
            "{}–{}".format(*row["rank_interval"]),
            f"{row['p_first']:.1%}",
        ]
        if equity:
            adjusted = row["equity"]
            line += [
                _mbb(adjusted["mbb_per_deal"]),
                f"{_mbb(adjusted['ci'][0])} … {_mbb(adjusted['ci'][1])}",
            ]
        rating = row["rating"]
        line += [
            "–"
            if rating is None
            else f"{rating['ordinal']:.2f} ({rating['mu']:.2f}, {rating['sigma']:.2f})",
            f"{row['deals']:,}",
            str(sum(row["faults"].values())),
        ]
        rows.append(line)
    lines += _table(headers, rows, ["r", "l"] + ["r"] * (len(headers) - 2))
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
    separation = [
        [
            cell(row["better"]),
            cell(row["worse"]),
            _mbb(row["gap_mbb"]),
            f"{row['p_better_beats_worse']:.1%}",
            "–" if row["deals_for_gap"] is None else f"{row['deals_for_gap']:,}",
            f"{row['deals_for_margin']:,}",
        ]
        for row in data["separation"]
    ]
    lines += _table(
        [
            "Higher",
            "Next",
            "Gap",
            "P(order right)",
            "Deals at the gap",
            f"Deals at {settings['margin_mbb']:g} mbb",
        ],
        separation,
        ["l", "l", "r", "r", "r", "r"],
    )
    lines += ["", "## Events", ""]
    lines += _table(
        ["#", "Run", "Event", "Format", "Seed", "Deals"],
        [
            [
                str(index),
                cell(event["label"]),
                cell(event["name"]),
                cell(event["format"]),
                str(event["seed"]),
                f"{event['deals']:,}",
            ]
            for index, event in enumerate(data["events"], start=1)
        ],
        ["r", "l", "l", "l", "r", "r"],
    )
    return "\n".join(lines) + "\n"
