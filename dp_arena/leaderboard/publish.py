"""Publishing: finished runs in, ``leaderboard.json``, ``README.md`` and ``index.html`` out,
and beside them the replay pages of the hands (``hands/``, see
:mod:`dp_arena.leaderboard.hands`), linked from the page.

The files are rendered from the same data and written atomically; for the same runs and
options they are byte-identical, wherever and whenever they are published.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dp_arena.files import write_atomic
from dp_arena.leaderboard.hands import DEFAULT_MAX_HANDS, add_hand_pages
from dp_arena.leaderboard.markdown import render_markdown
from dp_arena.leaderboard.model import LeaderboardOptions, build_leaderboard, load_runs
from dp_arena.leaderboard.page import render_page
from dp_arena.progress import ProgressLine

__all__ = ["FILES", "Published", "compute", "publish", "write_leaderboard"]

FILES = ("leaderboard.json", "README.md", "index.html")


@dataclass(frozen=True, slots=True)
class Published:
    out: Path
    data: dict[str, Any]
    files: tuple[Path, ...]


def leaderboard_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_leaderboard(data: dict[str, Any], out: Path) -> tuple[Path, ...]:
    """Write the three files of ``data`` into ``out`` (created if needed)."""
    texts = (leaderboard_json(data), render_markdown(data), render_page(data))
    paths = []
    for name, content in zip(FILES, texts, strict=True):
        path = out / name
        write_atomic(path, content)
        path.chmod(0o644)  # published to be read by anyone (a temporary file is 0600)
        paths.append(path)
    return tuple(paths)


def compute(
    run_dirs: Sequence[Path], options: LeaderboardOptions, progress: ProgressLine | None = None
) -> dict[str, Any]:
    """The leaderboard data of ``run_dirs``, saying on ``progress`` what it is doing."""
    adjusted = options.adjusted
    counted = None
    if progress is not None:
        shown = progress

        def counted(run: str, done: int, total: int) -> None:
            shown.count(
                f"{adjusted.label if adjusted else 'reading'}, {run}", done, total, "table-sessions"
            )

        progress.stage("reading the runs")
    events = load_runs(
        run_dirs, adjust=None if adjusted is None else adjusted.nets, progress=counted
    )
    if progress is not None:
        progress.stage(f"bootstrap ({options.resamples:,} resamples) and ratings")
    data = build_leaderboard(events, options)
    if progress is not None:
        progress.finish()
    return data


def publish(
    run_dirs: Sequence[Path],
    out: Path,
    options: LeaderboardOptions | None = None,
    progress: ProgressLine | None = None,
    *,
    max_hands: int = DEFAULT_MAX_HANDS,
) -> Published:
    """Compute the leaderboard of ``run_dirs`` and write it into ``out``, with the replay
    pages of at most ``max_hands`` of their hands (0: none)."""
    data = compute(run_dirs, options or LeaderboardOptions(), progress)
    pages = add_hand_pages(data, run_dirs, out, max_hands=max_hands) if max_hands > 0 else ()
    return Published(out, data, (*write_leaderboard(data, out), *pages))
