"""Published leaderboards: rankings with uncertainty and ratings, computed from finished
runs and written as ``leaderboard.json``, a Markdown ``README.md`` and a self-contained
``index.html`` (:func:`publish`)."""

from __future__ import annotations

from dp_arena.leaderboard.model import LeaderboardOptions, build_leaderboard, load_runs
from dp_arena.leaderboard.publish import publish

__all__ = ["LeaderboardOptions", "build_leaderboard", "load_runs", "publish"]
