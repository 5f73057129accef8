"""Rankings and ratings computed from results: block statistics (:mod:`.blocks`), run
directories read into deal blocks (:mod:`.runs`), duplicate scores (:mod:`.duplicate`),
the board-luck correction (:mod:`.board_luck`) and the all-in equity adjustment
(:mod:`.equity`), rankings with bootstrap uncertainty (:mod:`.uncertainty`) and OpenSkill
ratings across events (:mod:`.skill`).

NumPy and OpenSkill are imported only by the functions that use them.
"""

from __future__ import annotations

from dp_arena.ratings.action_luck import action_luck, board_action_nets
from dp_arena.ratings.blocks import (
    BlockSummary,
    bootstrap_interval,
    bootstrap_means,
    bootstrap_partial_means,
    percentile,
    student_t_cdf,
    student_t_quantile,
    summarize_blocks,
)
from dp_arena.ratings.board_luck import board_luck, board_luck_nets, corrected_nets
from dp_arena.ratings.duplicate import ScoreMatrix, play_scores, score_matrix
from dp_arena.ratings.equity import adjusted_nets, all_in_nets
from dp_arena.ratings.runs import (
    Comparison,
    DealBlock,
    EventRecord,
    NetAdjustment,
    SeatPlay,
    bot_identity,
    load_run,
    table_blocks,
)
from dp_arena.ratings.skill import BotRating, Ratings, RatingSettings, rate_event, rate_events
from dp_arena.ratings.uncertainty import Ranked, Ranking, deals_needed, rank_with_uncertainty

__all__ = [
    "BlockSummary",
    "BotRating",
    "Comparison",
    "DealBlock",
    "EventRecord",
    "NetAdjustment",
    "Ranked",
    "Ranking",
    "RatingSettings",
    "Ratings",
    "ScoreMatrix",
    "SeatPlay",
    "action_luck",
    "adjusted_nets",
    "all_in_nets",
    "board_action_nets",
    "board_luck",
    "board_luck_nets",
    "bootstrap_interval",
    "bootstrap_means",
    "bootstrap_partial_means",
    "bot_identity",
    "corrected_nets",
    "deals_needed",
    "load_run",
    "percentile",
    "play_scores",
    "rank_with_uncertainty",
    "rate_event",
    "rate_events",
    "score_matrix",
    "student_t_cdf",
    "student_t_quantile",
    "summarize_blocks",
    "table_blocks",
]
