"""The sections of a leaderboard's data computed from its rankings and ratings (see
:mod:`dp_arena.leaderboard.model`, which assembles them): the ranking's rows, the deals
needed to separate neighbours, the ratings with their history, the distributions of
block scores, and each competitor's entrants, faults and benching. Numbers are rounded to
a thousandth (:func:`rounded`), so that the files are stable and readable."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dp_arena.ratings.duplicate import ScoreMatrix
from dp_arena.ratings.runs import EventRecord
from dp_arena.ratings.skill import Ratings
from dp_arena.ratings.uncertainty import Ranking

__all__ = [
    "HISTOGRAM_BINS",
    "MAX_FAULTS_LISTED",
    "competitors_json",
    "distributions_json",
    "ranking_json",
    "ratings_json",
    "rounded",
    "separation_json",
]

HISTOGRAM_BINS = 21
MAX_FAULTS_LISTED = 50  # per bot; the counts by kind are always complete


def rounded(value: float | None, digits: int = 3) -> float | None:
    """``value`` to a thousandth (never ``-0.0``), ``None`` kept."""
    return None if value is None else round(value, digits) + 0.0  # + 0.0: no "-0.0"


def ranking_json(
    events: Sequence[EventRecord],
    results: Sequence[dict[str, Any]],
    ranking: Ranking,
    adjusted_ranking: Ranking | None,
    ratings: Ratings,
    by: str,
    competitor: Any,
) -> list[dict[str, Any]]:
    """Each competitor's row of the ranking, best first: its score and interval (and the
    adjusted one), rank range, rating, faults, prizes, benching and clairvoyance tests
    (``by``: ``"bot"`` or ``"player"``; ``competitor``: player -> competitor)."""
    faults: dict[str, dict[str, int]] = {}
    prizes: dict[str, int] = {}
    benched: dict[str, int] = {}
    absent: dict[str, int] = {}
    codes: dict[str, str] = {}
    tests: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for event, result in zip(events, results, strict=True):
        for fault in event.faults:
            counts = faults.setdefault(competitor(fault.player), {})
            counts[fault.kind.value] = counts.get(fault.kind.value, 0) + 1
        for player, cents in event.prizes:
            prizes[competitor(player)] = prizes.get(competitor(player), 0) + cents
        for bench in result["benched"]:
            name = competitor(bench["player"])
            benched[name] = benched.get(name, 0) + bench["deals_out"]
        for entrant in result["entrants"]:
            codes.setdefault(competitor(entrant["player"]), entrant["code"])
            if entrant.get("clairvoyance") is not None and entrant["status"] != "absent":
                tests.setdefault(competitor(entrant["player"]), []).append(
                    (event.label, entrant["clairvoyance"])
                )
            if entrant["status"] == "absent":
                absent[competitor(entrant["player"])] = (
                    absent.get(competitor(entrant["player"]), 0) + 1
                )
    entrants = _entrants_of(events, competitor)
    rated = {rating.bot: rating for rating in ratings.bots}
    rows = []
    for entry in ranking.entries:
        bot = entry.name if by == "bot" else _bot_of(events, entry.name)
        rating = rated.get(bot)
        adjusted = None
        if adjusted_ranking is not None:
            other = adjusted_ranking.entry(entry.name)
            adjusted = {
                "rank": other.rank,
                "mbb_per_deal": rounded(other.mean),
                "ci": [rounded(other.low), rounded(other.high)],
                "std_error": rounded(other.error),
            }
        names = entrants.get(entry.name, [])
        rows.append(
            {
                "rank": entry.rank,
                "name": entry.name,
                "label": _label(names, entry.name),
                "entrants": names,
                "code": codes.get(entry.name, "–"),
                "bot": bot,
                "mbb_per_deal": rounded(entry.mean),
                "ci": [rounded(entry.low), rounded(entry.high)],
                "std_error": rounded(entry.error),
                "std_dev_per_deal": rounded(entry.deviation),
                "rank_interval": [entry.rank_low, entry.rank_high],
                "p_first": rounded(entry.first),
                "deals": entry.blocks,
                "plays": entry.plays,
                "adjusted": adjusted,
                "rating": None
                if rating is None
                else {
                    "mu": rounded(rating.mu),
                    "sigma": rounded(rating.sigma),
                    "ordinal": rounded(rating.ordinal),
                },
                "faults": dict(sorted(faults.get(entry.name, {}).items())),
                "prize_cents": prizes.get(entry.name, 0),
                "benched_deals": benched.get(entry.name, 0),
                "absent": absent.get(entry.name, 0),
                "clairvoyance": _clairvoyance(tests.get(entry.name, [])),
            }
        )
    return rows


def _entrants_of(events: Sequence[EventRecord], competitor: Any) -> dict[str, list[str]]:
    """competitor -> the names of its entrants, in order of first appearance."""
    names: dict[str, list[str]] = {}
    for event in events:
        for player, _ in event.entrants:
            listed = names.setdefault(competitor(player), [])
            if player not in listed:
                listed.append(player)
    return names


def _label(names: Sequence[str], name: str) -> str:
    """A row's label: its entrant's name, or for a bot pooled from several entrants the
    bot and how many entrants it had."""
    if len(names) == 1:
        return names[0]
    return f"{name} ({len(names)} entrants)"


def _bot_of(events: Sequence[EventRecord], player: str) -> str:
    for event in events:
        bots = event.bots()
        if player in bots:
            return bots[player]
    return player


def _clairvoyance(tests: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any] | None:
    """A competitor's clairvoyance tests over the events (each entrant's in each event):
    how many, the smallest p of its own tests and of the table tests, and the events in
    which it is flagged (by its own test; by the table test alone). ``None`` when no
    event tested it."""
    if not tests:
        return None
    return {
        "tests": len(tests),
        "p": min(test["p"] for _, test in tests),
        "table_p": min(test["table"]["p"] for _, test in tests),
        "flagged_in": sorted({event for event, test in tests if test["flagged"]}),
        "table_flagged_in": sorted(
            {event for event, test in tests if test["table"]["flagged"] and not test["flagged"]}
        ),
    }


def separation_json(
    ranking: Ranking, adjusted: Ranking | None, margin: float
) -> list[dict[str, Any]]:
    """Each pair of neighbours in the ranking: their gap, how sure the order is, and the
    deals an event would need to separate them (at their gap and at ``margin``), by the
    raw score and, when there is one, by the ``adjusted`` score (``None`` otherwise)."""
    rows = []
    for better, worse in zip(ranking.entries, ranking.entries[1:], strict=False):
        gap = better.mean - worse.mean
        rows.append(
            {
                "better": better.name,
                "worse": worse.name,
                "gap_mbb": rounded(gap),
                "p_better_beats_worse": rounded(ranking.p_beats(better.name, worse.name)),
                "deals_for_gap": ranking.deals_to_separate(better.name, worse.name, gap)
                if gap > 0
                else None,
                "deals_for_margin": ranking.deals_to_separate(better.name, worse.name, margin),
                "adjusted": None
                if adjusted is None
                else {
                    "deals_for_gap": adjusted.deals_to_separate(better.name, worse.name, gap)
                    if gap > 0
                    else None,
                    "deals_for_margin": adjusted.deals_to_separate(better.name, worse.name, margin),
                },
            }
        )
    return rows


def ratings_json(ratings: Ratings) -> list[dict[str, Any]]:
    """Every bot's rating and its history, event after event."""
    return [
        {
            "bot": rating.bot,
            "mu": rounded(rating.mu),
            "sigma": rounded(rating.sigma),
            "ordinal": rounded(rating.ordinal),
            "games": rating.games,
            "events": rating.events,
            "history": [
                {
                    "index": point.index,
                    "event": point.event,
                    "mu": rounded(point.mu),
                    "sigma": rounded(point.sigma),
                    "ordinal": rounded(point.ordinal),
                }
                for point in ratings.history_of(rating.bot)
            ],
        }
        for rating in ratings.bots
    ]


def distributions_json(matrix: ScoreMatrix, order: Sequence[str]) -> dict[str, Any]:
    """Histograms of every competitor's block scores on common bins (the central 98% of
    all scores; the outer bins also hold everything beyond them)."""
    everything = sorted(score for column in matrix.scores for score in column if score is not None)
    if not everything:
        return {"edges": [], "counts": {}}
    low = everything[int(0.01 * (len(everything) - 1))]
    high = everything[int(0.99 * (len(everything) - 1))]
    if high <= low:
        low, high = low - 1, high + 1
    width = (high - low) / HISTOGRAM_BINS
    edges = [rounded(low + width * index) for index in range(HISTOGRAM_BINS + 1)]
    counts = {}
    for name in order:
        bins = [0] * HISTOGRAM_BINS
        for score in matrix.played(name):
            bins[min(HISTOGRAM_BINS - 1, max(0, int((score - low) // width)))] += 1
        counts[name] = bins
    return {"edges": edges, "counts": counts}


def competitors_json(
    events: Sequence[EventRecord],
    results: Sequence[dict[str, Any]],
    order: Sequence[str],
    competitor: Any,
) -> list[dict[str, Any]]:
    """Each competitor's details in ranking ``order``: its entrants in every event, its
    faults (the first :data:`MAX_FAULTS_LISTED`, and how many in all) and its benching."""
    details = []
    for name in order:
        entrants: list[dict[str, Any]] = []
        faults: list[dict[str, Any]] = []
        benched: list[dict[str, Any]] = []
        fault_total = 0
        for event, result in zip(events, results, strict=True):
            for entrant in result["entrants"]:
                if competitor(entrant["player"]) == name:
                    entrants.append({"event": event.label, "event_name": event.name, **entrant})
            for fault in result["faults"]:
                if competitor(fault["player"]) == name and len(faults) < MAX_FAULTS_LISTED:
                    faults.append({"event": event.label, **fault})
            fault_total += sum(
                sum(kinds.values())
                for player, kinds in result["fault_counts"].items()
                if competitor(player) == name
            )
            benched += [
                {"event": event.label, **bench}
                for bench in result["benched"]
                if competitor(bench["player"]) == name
            ]
        details.append(
            {
                "name": name,
                "code": entrants[0]["code"] if entrants else "–",
                "entrants": entrants,
                "faults": faults,
                "fault_total": fault_total,
                "benched": benched,
            }
        )
    return details
