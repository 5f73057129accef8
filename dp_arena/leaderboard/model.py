"""The content of a leaderboard, as plain JSON data: computed from finished runs by the
ratings package, and written out as JSON, Markdown and HTML by the other modules here.

The data is the single source of every published file (``leaderboard.json`` *is* it),
so the three files always agree, and the pages are a function of it alone. Numbers are
rounded to a thousandth (of an mbb, of a rating point) so that the files are stable and
readable; nothing in them depends on the time or the machine, so the same runs and
options give byte-identical files.

Entrants are named by player name and their code (:mod:`dp_arena.leaderboard.event`),
never by agent spec: a spec holds the organiser's paths. Ranked by bot, a bot is its
code (:func:`~dp_arena.ratings.runs.bot_identity`), shown with the names of its
entrants. The adjusted score beside the raw one is an option
(:mod:`dp_arena.leaderboard.adjusted`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dp_arena.leaderboard.adjusted import BOARD_ACTION, AdjustedScore
from dp_arena.leaderboard.event import event_codes, event_json, table_deals
from dp_arena.leaderboard.sections import (
    competitors_json,
    distributions_json,
    ranking_json,
    ratings_json,
    rounded,
    separation_json,
)
from dp_arena.ratings.action_luck import board_action_nets
from dp_arena.ratings.duplicate import ScoreMatrix, score_matrix
from dp_arena.ratings.runs import EventRecord, NetAdjustment, load_run
from dp_arena.ratings.skill import RatingSettings, order_events, rate_events
from dp_arena.ratings.uncertainty import rank_with_uncertainty

__all__ = [
    "LEADERBOARD_VERSION",
    "LeaderboardOptions",
    "build_leaderboard",
    "default_title",
    "load_runs",
]

# Bootstrap resamples: 1,000 give intervals good to a few percent; every resample costs
# memory for each pair of competitors, so a slip of a few zeros must not be tried.
MAX_RESAMPLES = 100_000

LEADERBOARD_VERSION = 2


@dataclass(frozen=True, slots=True)
class LeaderboardOptions:
    """How a leaderboard is computed: its ``title`` (``None``: :func:`default_title`);
    ``by`` ``"bot"`` (entrants of the same bot pooled) or ``"player"`` (every entrant
    apart); the bootstrap's ``seed``, ``resamples`` and ``confidence``; the ``margin`` in
    mbb per deal for which the deals needed to separate two bots are reported; the
    ``adjusted`` score reported beside the raw one (``None``: none, and ``not_adjusted``
    says why); and the rating model's settings."""

    title: str | None = None
    by: str = "bot"
    seed: int = 0
    resamples: int = 1000
    confidence: float = 0.95
    margin: float = 50.0
    adjusted: AdjustedScore | None = BOARD_ACTION
    not_adjusted: str = "no adjusted score was asked for"
    rating: RatingSettings = field(default_factory=RatingSettings)

    def __post_init__(self) -> None:
        if self.by not in ("bot", "player"):
            raise ValueError(f"by must be 'bot' or 'player', not {self.by!r}")
        if not 2 <= self.resamples <= MAX_RESAMPLES:
            raise ValueError(f"resamples must be from 2 to {MAX_RESAMPLES:_}, not {self.resamples}")
        if not 0 < self.margin < math.inf:
            raise ValueError(f"margin must be a positive number, not {self.margin}")


def load_runs(
    run_dirs: Sequence[Path],
    *,
    adjust: NetAdjustment | None = board_action_nets,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[EventRecord]:
    """The events of ``run_dirs``, in rating order (:func:`order_events`), each entrant
    with a code (named from its spec for a run that recorded none). With ``adjust``,
    every play's adjusted net is computed from the deal records; ``progress(run, done,
    total)`` hears of every table-session adjusted."""
    events = []
    for run_dir in run_dirs:
        label = run_dir.resolve().name
        step = None if progress is None else _progress_of(progress, label)
        event = load_run(run_dir, adjust=adjust, progress=step)
        events.append(replace(event, codes=event_codes(event)))
    labels = [event.label for event in events]
    for label in labels:
        if labels.count(label) > 1:
            raise ValueError(f"two run directories are both named {label!r}; rename one")
    digests = [event.digest for event in events]
    for event in events:
        if digests.count(event.digest) > 1:
            raise ValueError(f"run {event.label!r} is given twice (identical results.json)")
    return order_events(events)


def _rollouts(events: Sequence[EventRecord], adjusted: AdjustedScore | None) -> dict[str, Any]:
    """``{"rollouts": {run: rollouts per action, or None}}`` when the adjusted score's
    action terms used rollout values in some event; nothing otherwise (the document of a
    leaderboard without them is as it always was)."""
    if adjusted is None or "action" not in adjusted.terms:
        return {}
    if all(event.rollouts is None for event in events):
        return {}
    return {"rollouts": {event.label: event.rollouts for event in events}}


def _progress_of(
    progress: Callable[[str, int, int], None], label: str
) -> Callable[[int, int], None]:
    return lambda done, total: progress(label, done, total)


def default_title(events: Sequence[EventRecord]) -> str:
    """The event's name for one event; for several, their names (or how many there are)."""
    names = list(dict.fromkeys(event.name for event in events))
    if len(names) == 1:
        return names[0]
    if len(names) <= 3:
        return " · ".join(names)
    return f"Leaderboard of {len(events)} events"


def build_leaderboard(events: Sequence[EventRecord], options: LeaderboardOptions) -> dict[str, Any]:
    """The leaderboard of ``events`` (in rating order) as JSON data."""
    if not events:
        raise ValueError("a leaderboard needs at least one finished run")
    competitor = _competitor(events, options.by)
    results = [event_json(event) for event in events]
    # An entrant that never played (it could not load, and sat out as an absent player)
    # has no skill to rank: it is left out of the scores, the ratings and the
    # head-to-head tables (the others' scores still count the seats it sat out), and
    # listed apart with why. The event's standings and prizes follow the rules as played.
    unranked = _never_played(results, competitor)
    blocks = [block for event in events for block in event.blocks]
    matrix = _without(score_matrix(blocks, competitor), unranked)
    if not matrix.names:
        raise ValueError(
            "these runs have no duplicate deals to score (a classic freezeout has no seat"
            " positions, and a seat position needs two entrants)"
        )
    ranking = rank_with_uncertainty(
        matrix, seed=options.seed, resamples=options.resamples, confidence=options.confidence
    )
    adjusted = options.adjusted if options.adjusted is None else options.adjusted.described(events)
    reason = options.not_adjusted if adjusted is None else None
    if adjusted is not None:
        reason = next(filter(None, (adjusted.missing(event) for event in events)), None)
    adjusted_ranking = None
    if adjusted is not None and reason is None:
        adjusted_ranking = rank_with_uncertainty(
            _without(adjusted.scores(blocks, competitor), unranked),
            seed=options.seed,
            resamples=options.resamples,
            confidence=options.confidence,
        )
    ratings = rate_events(
        [_without_players(event, unranked, competitor) for event in events], options.rating
    )
    return {
        "leaderboard_version": LEADERBOARD_VERSION,
        "title": options.title or default_title(events),
        "unit": "mbb/deal",
        "ranked_by": options.by,
        "settings": {
            "bootstrap_seed": options.seed,
            "resamples": options.resamples,
            "confidence": options.confidence,
            "margin_mbb": options.margin,
            "adjusted": {
                "key": None if adjusted is None else adjusted.key,
                "terms": [] if adjusted is None else list(adjusted.terms),
                "label": None if adjusted is None else adjusted.label,
                "about": None if adjusted is None else adjusted.about,
                "applied": adjusted_ranking is not None,
                "reason": reason,
                **_rollouts(events, adjusted),
            },
            "rating": {
                "model": "openskill PlackettLuce",
                "mu": options.rating.mu,
                "sigma": options.rating.sigma,
                "beta": options.rating.beta,
                "tau": options.rating.tau,
            },
        },
        "deals": len(matrix.blocks),
        "table_deals": table_deals(blocks),
        "events": [{**result, "adjusted": adjusted_ranking is not None} for result in results],
        "ranking": ranking_json(
            events, results, ranking, adjusted_ranking, ratings, options.by, competitor
        ),
        "pairwise": {
            "order": list(ranking.names),
            "p_beats": [[rounded(value) for value in row] for row in ranking.beats],
        },
        "separation": separation_json(ranking, adjusted_ranking, options.margin),
        "ratings": ratings_json(ratings),
        "distributions": distributions_json(matrix, ranking.names),
        "competitors": competitors_json(events, results, ranking.names, competitor),
        "unranked": [{"name": name, "reason": reason} for name, reason in sorted(unranked.items())],
    }


def _never_played(results: Sequence[dict[str, Any]], competitor: Any) -> dict[str, str]:
    """competitor -> why, for each whose every entrant was absent from every event (it
    never played a decision)."""
    absent: dict[str, str] = {}
    played: set[str] = set()
    for result in results:
        for entrant in result["entrants"]:
            name = competitor(entrant["player"])
            if entrant["status"] == "absent":
                reason = entrant.get("absent_reason") or "no reason given"
                absent.setdefault(name, f"absent: {reason}")
            else:
                played.add(name)
    return {name: reason for name, reason in absent.items() if name not in played}


def _without(matrix: ScoreMatrix, names: Mapping[str, str]) -> ScoreMatrix:
    """``matrix`` without the columns of ``names``."""
    if not names:
        return matrix
    kept = [index for index, name in enumerate(matrix.names) if name not in names]
    return ScoreMatrix(
        names=tuple(matrix.names[index] for index in kept),
        blocks=matrix.blocks,
        scores=tuple(matrix.scores[index] for index in kept),
        plays=tuple(matrix.plays[index] for index in kept),
        sums=tuple(matrix.sums[index] for index in kept),
    )


def _without_players(event: EventRecord, names: Mapping[str, str], competitor: Any) -> EventRecord:
    """``event`` with the players of ``names`` left out of its seat-position comparisons
    (the others keep their order; places are counted again among them)."""
    if not names:
        return event
    comparisons = []
    for comparison in event.comparisons:
        kept = [
            (player, place)
            for player, place in zip(comparison.players, comparison.places, strict=True)
            if competitor(player) not in names
        ]
        if len(kept) < 2:
            continue
        places = tuple(1 + sum(other < place for _, other in kept) for _, place in kept)
        comparisons.append(
            replace(comparison, players=tuple(player for player, _ in kept), places=places)
        )
    return replace(event, comparisons=tuple(comparisons))


def _competitor(events: Sequence[EventRecord], by: str) -> Any:
    if by == "player":
        return lambda player: player
    return _BotOf(events)


class _BotOf:
    """player -> bot, from every event's entrants: a player name must mean the same bot
    in every run it appears in (it is refused otherwise)."""

    def __init__(self, events: Sequence[EventRecord]) -> None:
        self.bots: dict[str, str] = {}
        for event in events:
            for player, bot in event.bots().items():
                known = self.bots.setdefault(player, bot)
                if known != bot:
                    raise ValueError(
                        f"player {player!r} is {known!r} in one run and {bot!r} in"
                        f" {event.label!r}; rank these runs separately or by player"
                    )

    def __call__(self, player: str) -> str:
        return self.bots[player]
