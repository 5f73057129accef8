"""Ratings and statistics computed from results: block statistics of duplicate scores
(:mod:`dp_arena.ratings.blocks`), and later rankings and ratings across events."""

from __future__ import annotations

from dp_arena.ratings.blocks import (
    BlockSummary,
    bootstrap_interval,
    bootstrap_means,
    student_t_cdf,
    student_t_quantile,
    summarize_blocks,
)

__all__ = [
    "BlockSummary",
    "bootstrap_interval",
    "bootstrap_means",
    "student_t_cdf",
    "student_t_quantile",
    "summarize_blocks",
]
