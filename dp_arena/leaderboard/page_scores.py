"""The parts of the leaderboard page that give the duplicate scores, from the
leaderboard's data (:func:`~dp_arena.leaderboard.model.build_leaderboard`): the ranking
(with the clairvoyance flags), who beats whom, the deals needed to separate neighbours,
the ratings, each competitor's section and the runs the board was built from. Every
value is escaped (:mod:`dp_arena.leaderboard.html`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dp_arena.leaderboard.charts import text
from dp_arena.leaderboard.html import Cell, interval, mbb, money, table

__all__ = [
    "clairvoyance_cell",
    "competitor_section",
    "flagged_note",
    "pairwise_table",
    "ranking_table",
    "ratings_table",
    "runs_table",
    "separation_table",
]


def ranking_table(data: dict[str, Any]) -> str:
    """The ranking: every competitor's score, interval, rank range, rating, prize and
    faults (and its clairvoyance tests, where any was tested), sortable."""
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
            Cell(mbb(row["mbb_per_deal"]), row["mbb_per_deal"], note=interval(row["ci"])),
            Cell("{}–{}".format(*row["rank_interval"]), row["rank_interval"][0]),
            Cell(f"{row['p_first']:.1%}", row["p_first"]),
        ]
        if applied:
            other = row["adjusted"]
            cells.append(
                Cell(mbb(other["mbb_per_deal"]), other["mbb_per_deal"], note=interval(other["ci"]))
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


def flagged_note(data: dict[str, Any]) -> str:
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


def pairwise_table(data: dict[str, Any]) -> str:
    """Who beats whom: the share of resamples in which the row scores more than the
    column."""
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


def separation_table(data: dict[str, Any]) -> str:
    """The deals needed to tell each competitor from the next one, at the measured gap
    and at the board's margin."""
    margin = data["settings"]["margin_mbb"]
    adjusted = data["settings"]["adjusted"]
    labels = {row["name"]: row["label"] for row in data["ranking"]}
    rows = []
    for row in data["separation"]:
        cells = [
            Cell(labels.get(row["better"], row["better"]), css="name"),
            Cell(labels.get(row["worse"], row["worse"]), css="name"),
            Cell(mbb(row["gap_mbb"]), row["gap_mbb"]),
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


def ratings_table(data: dict[str, Any]) -> str:
    """Every bot's rating (μ − 3σ, μ, σ) and how many games and events it rests on."""
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


def competitor_section(
    index: int, details: dict[str, Any], row: dict[str, Any], *, several: bool
) -> str:
    """A competitor's section: its score in words, its faults, and its entrants (with
    the events they played, when the board has ``several``)."""
    counts = ", ".join(f"{kind} {count}" for kind, count in row["faults"].items()) or "none"
    spread = row["std_dev_per_deal"]
    summary = (
        f"{mbb(row['mbb_per_deal'])} mbb/deal over {row['deals']:,} deals"
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


def runs_table(events: Sequence[dict[str, Any]]) -> str:
    """The runs the board was built from: format, deck key, deals, entrants, and the
    digest of each one's results."""
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
