"""The adjusted score reported beside the raw duplicate score: a correction for the luck
that duplicate dealing leaves in (the same cards still run out differently at the
mirrored tables once the betting stops early).

An :class:`AdjustedScore` is one way of computing it: its name and a sentence for the
page, what it needs of a run, and its per-block scores. The leaderboard takes one as an
option (:class:`~dp_arena.leaderboard.model.LeaderboardOptions`) and renders whatever
the data says about it, so another correction can take the all-in equity adjustment's
place without touching the pages; the raw score is always there beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from dp_arena.ratings.duplicate import ScoreMatrix, score_matrix
from dp_arena.ratings.runs import DealBlock, EventRecord

__all__ = ["ADJUSTMENTS", "ALL_IN_EQUITY", "AdjustedScore"]


@dataclass(frozen=True, slots=True)
class AdjustedScore:
    """``key`` names it in ``leaderboard.json``; ``label`` heads its columns; ``about``
    says in one sentence what it does; ``needs_store``: it needs the deal records of the
    run's checkpoint store (``load_run(equity=True)``); ``missing`` says why an event
    cannot be adjusted (``None`` when it can); ``scores`` gives the per-block scores."""

    key: str
    label: str
    about: str
    needs_store: bool
    missing: Callable[[EventRecord], str | None]
    scores: Callable[[Iterable[DealBlock], Callable[[str], str]], ScoreMatrix]


def _equity_missing(event: EventRecord) -> str | None:
    if event.has_equity:
        return None
    return f"run {event.label} has no checkpoint store (store.sqlite) with its deal records"


def _equity_scores(blocks: Iterable[DealBlock], competitor: Callable[[str], str]) -> ScoreMatrix:
    return score_matrix(blocks, competitor, equity=True)


ALL_IN_EQUITY = AdjustedScore(
    key="equity",
    label="All-in adjusted",
    about=(
        "The all-in adjusted score replaces the nets of every deal whose betting ended"
        " before the river by their exact expectation over every remaining board."
    ),
    needs_store=True,
    missing=_equity_missing,
    scores=_equity_scores,
)

ADJUSTMENTS = {ALL_IN_EQUITY.key: ALL_IN_EQUITY}
