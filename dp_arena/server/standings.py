"""The ladder's standings: every finished match's deal blocks scored together, ranked with
bootstrap intervals, the leaderboard's adjusted score beside the raw one, and OpenSkill
ratings over the matches' seat-position comparisons.

Nothing here is new statistics: the blocks are :func:`~dp_arena.ratings.table_blocks` of
each match's tables, the scores :func:`~dp_arena.ratings.score_matrix`, the intervals
:func:`~dp_arena.ratings.rank_with_uncertainty`, the adjusted score whichever
:class:`~dp_arena.leaderboard.adjusted.AdjustedScore` the leaderboard uses by default,
the ratings :func:`~dp_arena.ratings.rate_events`. A bot version is ranked under its
registry name, ``name@version``, so a new version starts a new line and the old one
keeps its history.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dp_arena.engine import Betting, TableRules, deck_for
from dp_arena.leaderboard.adjusted import AdjustedScore
from dp_arena.leaderboard.model import LeaderboardOptions
from dp_arena.names import REGISTRY_PREFIX
from dp_arena.ratings import (
    Comparison,
    DealBlock,
    EventRecord,
    Ranking,
    rank_with_uncertainty,
    rate_events,
    table_blocks,
)
from dp_arena.ratings.clairvoyance import Clairvoyance, Ledger, Steps
from dp_arena.ratings.duplicate import ScoreMatrix, score_matrix
from dp_arena.results import TableSessionResult

__all__ = [
    "LadderMatch",
    "MatchRecord",
    "Standings",
    "compute_standings",
    "default_adjusted",
    "match_blocks",
    "match_record",
    "match_steps",
    "rank_lines",
    "standings_of",
    "unscored_line",
]


def default_adjusted() -> AdjustedScore | None:
    """The adjusted score the leaderboard reports by default."""
    return LeaderboardOptions().adjusted


@dataclass(frozen=True, slots=True)
class LadderMatch:
    """A finished match as the standings need it: its id, rules and tables, and the seed
    of its decks (``None``: not known, and no clairvoyance test)."""

    id: int
    rules: TableRules
    tables: tuple[TableSessionResult, ...]
    seed: int | None = None


def match_rules(
    seat_count: int, small_blind: int, big_blind: int, betting: str, cap: int
) -> TableRules:
    return TableRules(
        seat_count=seat_count,
        small_blind=small_blind,
        big_blind=big_blind,
        betting=Betting(betting),
        cap=cap,
    )


def match_blocks(match: LadderMatch, adjusted: AdjustedScore | None) -> tuple[DealBlock, ...]:
    """The deal blocks of one match (with the adjusted score's nets of every deal record
    when there is one)."""
    adjust = None if adjusted is None else adjusted.nets
    return tuple(table_blocks(f"match-{match.id}", match.tables, match.rules, adjust=adjust))


def match_steps(match: LadderMatch) -> dict[str, Steps]:
    """Each bot's clairvoyance steps in one match (none without the match's seed): the
    standings join every match's, in the order the matches were played."""
    if match.seed is None:
        return {}
    seed = match.seed
    ledger = Ledger(keep_steps=True)
    for table in match.tables:
        ledger.add_table(
            match.rules, table, lambda deal: deck_for(seed, 0, 0, deal), lambda deal: (deal,)
        )
    return {player: ledger.steps(player) for player in ledger.players()}


def _comparisons(match: LadderMatch) -> tuple[Comparison, ...]:
    """One comparison per seat position: the players who held that seat's cards, placed by
    their net in it over the match (equal nets tie)."""
    totals: dict[int, dict[str, int]] = {}
    for table in match.tables:
        for deal in table.deals:
            for seat, player in enumerate(deal.players):
                if seat in deal.absent:
                    continue
                seat_totals = totals.setdefault(seat, {})
                seat_totals[player] = seat_totals.get(player, 0) + deal.nets[seat]
    comparisons = []
    for seat in sorted(totals):
        ordered = sorted(totals[seat].items(), key=lambda item: (-item[1], item[0]))
        if len(ordered) < 2:
            continue
        levels = sorted({-net for _, net in ordered})
        comparisons.append(
            Comparison(
                session=1,
                section=1,
                seat=seat,
                players=tuple(player for player, _ in ordered),
                places=tuple(1 + levels.index(-net) for _, net in ordered),
            )
        )
    return tuple(comparisons)


def _event(match: LadderMatch) -> EventRecord:
    players = sorted({player for table in match.tables for player in table.players})
    return EventRecord(
        label=f"match-{match.id}",
        name=f"match {match.id}",
        format="ladder",
        seed=0,
        digest=f"{match.id:020d}",
        finished=None,
        entrants=tuple((player, f"{REGISTRY_PREFIX}{player}") for player in players),
        blocks=(),
        comparisons=_comparisons(match),
        faults=(),
        prizes=(),
        has_adjusted=False,
    )


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """What the standings keep of a finished match, computed once from its tables: its
    players, deal blocks, each player's clairvoyance steps and its seat-position
    comparisons (the tables themselves are not kept)."""

    id: int
    players: frozenset[str]
    blocks: tuple[DealBlock, ...]
    steps: Mapping[str, Steps]
    event: EventRecord


def match_record(match: LadderMatch, adjusted: AdjustedScore | None) -> MatchRecord:
    """The record of one finished match (no blocks and no steps for a match whose
    tables cannot be scored: it is left out of the scores, said by the caller)."""
    players = frozenset(player for table in match.tables for player in table.players)
    return MatchRecord(
        match.id, players, match_blocks(match, adjusted), match_steps(match), _event(match)
    )


@dataclass(frozen=True, slots=True)
class Standing:
    ref: str
    deals: int
    mbb_per_deal: float
    ci95: tuple[float, float] | None
    std_error: float | None
    deviation: float | None
    adjusted_mbb: float | None
    adjusted_ci95: tuple[float, float] | None
    mu: float
    sigma: float
    matches: int
    clairvoyance: Clairvoyance | None = None

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class Standings:
    """Every ranked bot version by ``name@version``, and who beats whom."""

    by_ref: Mapping[str, Standing]
    p_beats: Mapping[tuple[str, str], float] = field(default_factory=dict)
    adjusted: AdjustedScore | None = None

    def beats(self, first: str, second: str) -> float | None:
        return self.p_beats.get((first, second))


def _rounded(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, 3) + 0.0


def _ranking(matrix: ScoreMatrix, resamples: int) -> Ranking | None:
    if not matrix.names:
        return None
    return rank_with_uncertainty(matrix, seed=0, resamples=resamples)


def compute_standings(
    matches: Sequence[LadderMatch],
    blocks: Mapping[int, Sequence[DealBlock]],
    *,
    adjusted: AdjustedScore | None,
    resamples: int = 1000,
    steps: Mapping[int, Mapping[str, Steps]] | None = None,
) -> Standings:
    """The standings of ``matches``; ``blocks[match.id]`` are its :func:`match_blocks`,
    ``steps[match.id]`` its :func:`match_steps` (each bot's clairvoyance test is its steps
    of every match, in the order of the matches' ids: the order they were scheduled)."""
    records = [
        MatchRecord(
            match.id,
            frozenset(player for table in match.tables for player in table.players),
            tuple(blocks[match.id]),
            {} if steps is None else steps.get(match.id, {}),
            _event(match),
        )
        for match in matches
    ]
    return standings_of(records, adjusted=adjusted, resamples=resamples, tested=steps is not None)


def standings_of(
    records: Sequence[MatchRecord],
    *,
    adjusted: AdjustedScore | None,
    resamples: int = 1000,
    tested: bool = True,
) -> Standings:
    """The standings of the finished matches ``records`` (:func:`match_record`)."""
    every = [block for record in records for block in record.blocks]
    if not every:
        return Standings({}, adjusted=adjusted)

    def identity(player: str) -> str:
        return player

    matrix = score_matrix(every, identity)
    ranking = _ranking(matrix, resamples)
    adjusted_ranking = None
    if adjusted is not None:
        adjusted_ranking = _ranking(adjusted.scores(every, identity), resamples)
    ratings = rate_events([record.event for record in records])
    meetings: dict[str, int] = {}
    for record in records:
        for player in record.players:
            meetings[player] = meetings.get(player, 0) + 1
    by_ref: dict[str, Standing] = {}
    if ranking is None:
        return Standings({}, adjusted=adjusted)
    ordered = sorted(records, key=lambda record: record.id)
    for entry in ranking.entries:
        adjusted_entry = None
        if adjusted_ranking is not None and entry.name in adjusted_ranking.names:
            adjusted_entry = adjusted_ranking.entry(entry.name)
        try:
            rating = ratings.rating(entry.name)
            mu, sigma = rating.mu, rating.sigma
        except KeyError:
            mu, sigma = ratings.settings.mu, ratings.settings.sigma
        by_ref[entry.name] = Standing(
            ref=entry.name,
            deals=entry.blocks,
            mbb_per_deal=entry.mean,
            ci95=(entry.low, entry.high) if entry.blocks >= 2 else None,
            std_error=entry.error if entry.blocks >= 2 else None,
            deviation=entry.deviation,
            adjusted_mbb=None if adjusted_entry is None else adjusted_entry.mean,
            adjusted_ci95=None
            if adjusted_entry is None or adjusted_entry.blocks < 2
            else (adjusted_entry.low, adjusted_entry.high),
            mu=mu,
            sigma=sigma,
            matches=meetings.get(entry.name, 0),
            clairvoyance=_clairvoyance(entry.name, ordered) if tested else None,
        )
    p_beats = {
        (first, second): ranking.p_beats(first, second)
        for first in ranking.names
        for second in ranking.names
        if first != second
    }
    return Standings(by_ref, p_beats, adjusted)


def _clairvoyance(player: str, ordered: Sequence[MatchRecord]) -> Clairvoyance | None:
    parts = [record.steps[player] for record in ordered if player in record.steps]
    return Steps.join(parts) if parts else None


def leaderboard_json(
    standings: Standings,
    entries: Sequence[Mapping[str, Any]],
    *,
    matches: int,
    updated: str,
) -> dict[str, Any]:
    """The ladder's leaderboard as the API serves it: one line per entry (a bot's current
    version), best score first; ``entries`` give each one's ``id``, ``name``,
    ``version`` (the author's label), ``ref``, ``author`` and whether it is a ``house``
    bot."""
    adjusted = standings.adjusted
    lines = []
    for entry in entries:
        standing = standings.by_ref.get(str(entry["ref"]))
        line = unscored_line(entry)
        if standing is not None:
            line |= {
                "deals": standing.deals,
                "matches": standing.matches,
                "mbb_per_deal": _rounded(standing.mbb_per_deal),
                "ci95": None
                if standing.ci95 is None
                else [_rounded(standing.ci95[0]), _rounded(standing.ci95[1])],
                "std_error": _rounded(standing.std_error),
                "adjusted": None
                if adjusted is None or standing.adjusted_mbb is None
                else {
                    "mbb_per_deal": _rounded(standing.adjusted_mbb),
                    "ci95": None
                    if standing.adjusted_ci95 is None
                    else [_rounded(standing.adjusted_ci95[0]), _rounded(standing.adjusted_ci95[1])],
                },
                "rating": {
                    "mu": _rounded(standing.mu),
                    "sigma": _rounded(standing.sigma),
                    "ordinal": _rounded(standing.ordinal),
                },
                "clairvoyance": None
                if standing.clairvoyance is None
                else standing.clairvoyance.to_json(),
            }
        lines.append(line)
    rank_lines(lines)
    return {
        "bots": lines,
        "matches": matches,
        "updated": updated,
        "unit": "mbb/deal",
        "confidence": 0.95,
        "adjusted": None
        if adjusted is None
        else {
            "key": adjusted.key,
            "terms": list(adjusted.terms),
            "label": adjusted.label,
            "about": adjusted.about,
        },
    }


def unscored_line(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The leaderboard line of an entry with no score yet (``entry`` as
    :func:`leaderboard_json` takes it)."""
    return {key: entry[key] for key in ("id", "name", "version", "ref", "author")} | {
        "house": bool(entry.get("house")),
        "deals": 0,
        "matches": 0,
        "mbb_per_deal": None,
        "ci95": None,
        "std_error": None,
        "adjusted": None,
        "rating": None,
        "clairvoyance": None,
    }


def rank_lines(lines: list[dict[str, Any]]) -> None:
    """Sort leaderboard lines in place, best score first and the unscored last (by ref),
    and give each scored line its rank."""
    lines.sort(
        key=lambda line: (
            line["mbb_per_deal"] is None,
            -(line["mbb_per_deal"] or 0.0),
            str(line["ref"]),
        )
    )
    for rank, line in enumerate(lines, start=1):
        line["rank"] = rank if line["mbb_per_deal"] is not None else None
