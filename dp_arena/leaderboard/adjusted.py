"""The adjusted score reported beside the raw duplicate score: a correction for the luck
that duplicate dealing leaves in (the same cards still fall on different pots at the
mirrored tables once their players play differently).

An :class:`AdjustedScore` is one way of computing it: its name and a sentence for the
page, the adjusted nets it computes from each deal record, and what it needs of a run.
The leaderboard takes one as an option
(:class:`~dp_arena.leaderboard.model.LeaderboardOptions`) and renders whatever the data
says about it; the raw score is always there beside it. Two are offered
(:data:`ADJUSTMENTS`): the board-luck correction, the default, and the all-in equity
adjustment, its special case for hands that went all in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from dp_arena.ratings.board_luck import corrected_nets
from dp_arena.ratings.duplicate import ScoreMatrix, score_matrix
from dp_arena.ratings.equity import all_in_nets
from dp_arena.ratings.runs import DealBlock, EventRecord, NetAdjustment

__all__ = ["ADJUSTMENTS", "ALL_IN_EQUITY", "BOARD_LUCK", "AdjustedScore"]


@dataclass(frozen=True, slots=True)
class AdjustedScore:
    """``key`` names it in ``leaderboard.json``; ``label`` heads its columns; ``about``
    says in a sentence or two what it does; ``nets`` computes a deal's adjusted nets from
    its record (the run's checkpoint store keeps them: ``load_run(adjust=nets)``)."""

    key: str
    label: str
    about: str
    nets: NetAdjustment

    def missing(self, event: EventRecord) -> str | None:
        """Why ``event`` cannot be adjusted (``None`` when it can)."""
        if event.has_adjusted:
            return None
        return f"run {event.label} has no checkpoint store (store.sqlite) with its deal records"

    def scores(self, blocks: Iterable[DealBlock], competitor: Callable[[str], str]) -> ScoreMatrix:
        """The per-block adjusted scores (the blocks were read with :attr:`nets`)."""
        return score_matrix(blocks, competitor, adjusted=True)


BOARD_LUCK = AdjustedScore(
    key="board-luck",
    label="Luck-adjusted",
    about=(
        "The luck-adjusted score takes the luck of every board card out of each net: the"
        " change the card made to the player's exact expected net at showdown, with the"
        " chips in when it came, over every possible rest of the board. Each card's luck"
        " averages zero over the cards that could have come, so nothing is biased and"
        " nothing is fitted; the players' decisions are kept."
    ),
    nets=corrected_nets,
)

ALL_IN_EQUITY = AdjustedScore(
    key="all-in",
    label="All-in adjusted",
    about=(
        "The all-in adjusted score replaces the nets of every deal whose betting ended"
        " before the river by their exact expectation over every remaining board."
    ),
    nets=all_in_nets,
)

ADJUSTMENTS = {adjustment.key: adjustment for adjustment in (BOARD_LUCK, ALL_IN_EQUITY)}
