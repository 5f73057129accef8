"""Hand replay pages beside a published leaderboard: one page per section of a session
(``hands/RUN/sS-xX.html``: the viewer of ``dp-arena replay --html``, which needs nothing
beside it), where each deal is shown at all the section's mirrored tables side by side;
listed on the event's page by table-session, and every fault listed there linked to the
deal it happened in (``...html#hand-N``).

:func:`add_hand_pages` writes the pages and records them in the leaderboard's data
(``events[].hands``: each table-session's history with the page its hands are on and
how many; ``events[].faults[].hand``), so that the page and ``leaderboard.json`` both say
where they are. At most ``max_hands`` hands (a deal at k tables counts k) are rendered
for one publication (a large event has millions): the deals past the limit are left out,
the table-sessions with none rendered are listed without a page, and ``dp-arena replay
--html`` renders any of them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dp_arena.engine.phh import load_histories, read_text, replay_hand
from dp_arena.errors import HandHistoryError
from dp_arena.files import write_atomic
from dp_arena.leaderboard.replay import deal_view, hand_view, render_replay_page
from dp_arena.rundir import RunDir

__all__ = ["DEFAULT_MAX_HANDS", "HANDS_FOLDER", "add_hand_pages", "history_stem"]

DEFAULT_MAX_HANDS = 10_000
HANDS_FOLDER = "hands"

# A history as results.json lists it: a file of the run's histories/ folder, no more.
_HISTORY = re.compile(r"histories/([A-Za-z0-9][A-Za-z0-9._-]{0,99})\.phhs?")
_WHERE = ("_session", "_section", "_table", "_deal")


def add_hand_pages(
    data: dict[str, Any],
    run_dirs: Sequence[Path],
    out: Path,
    *,
    max_hands: int = DEFAULT_MAX_HANDS,
) -> tuple[Path, ...]:
    """Write the replay pages of ``run_dirs``' hands into ``out/hands/`` and record them
    in ``data`` (changed in place); the pages written."""
    folders = {run_dir.resolve().name: run_dir for run_dir in run_dirs}
    budget = max(0, max_hands)
    written: list[Path] = []
    for event in data["events"]:
        run_dir = folders.get(event["label"])
        # Pages an earlier publication left here would list hands no page links.
        for stale in (out / HANDS_FOLDER / event["label"]).glob("*.html"):
            stale.unlink()
        listed = _histories(run_dir)
        entries: dict[str, dict[str, Any]] = {
            relative: {"history": relative, "file": None, "hands": None} for relative in listed
        }
        links: dict[tuple[Any, ...], str] = {}
        for stem, histories in _sections(listed).items():
            if budget <= 0 or run_dir is None:
                break
            deals, counts, where = _section_deals(run_dir, histories, budget)
            if not deals:
                continue
            budget -= sum(counts.values())
            target = f"{HANDS_FOLDER}/{event['label']}/{stem}.html"
            title = f"{event['name']}: hands of {_section_title(stem)}"
            path = out / target
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, render_replay_page(deals, title=title))
            path.chmod(0o644)  # published to be read by anyone
            written.append(path)
            for relative, count in counts.items():
                if count:
                    entries[relative] |= {"file": target, "hands": count}
            for number, keys in enumerate(where, start=1):
                for key in keys:
                    links.setdefault(key, f"{target}#hand-{number}")
        for fault in event["faults"]:
            key = tuple(fault.get(name) for name in ("session", "section", "table", "deal"))
            fault["hand"] = links.get(key)
        pages = list(entries.values())
        event["hands"] = {
            "pages": pages,
            "rendered": sum(1 for page in pages if page["file"] is not None),
            "max_hands": max_hands,
        }
    return tuple(written)


def _sections(listed: Sequence[str]) -> dict[str, list[str]]:
    """The histories of each section of a session (``s01-x02``), tables in order."""
    sections: dict[str, list[str]] = {}
    for relative in listed:
        stem = history_stem(relative)
        section, dash, table = stem.rpartition("-")
        key = section if dash and table.startswith("t") else stem
        sections.setdefault(key, []).append(relative)
    return sections


def _section_title(stem: str) -> str:
    """``s01-x02`` -> ``session 1, section 2`` (else the stem as it is)."""
    found = re.fullmatch(r"s(\d+)-x(\d+)", stem)
    if found is None:
        return stem
    return f"session {int(found.group(1))}, section {int(found.group(2))}"


def _section_deals(
    run_dir: Path, histories: Sequence[str], budget: int
) -> tuple[list[dict[str, Any]], dict[str, int], list[list[tuple[int, ...]]]]:
    """A section's deals at all its tables, as many as ``budget`` hands hold: the deals,
    how many hands of each history they show, and where each deal was dealt (session,
    section, table, deal of each of its tables)."""
    by_deal: dict[Any, list[tuple[str, dict[str, Any], tuple[int, ...] | None]]] = {}
    titles: dict[Any, str] = {}
    for relative in histories:
        views, where = _views(run_dir / relative)
        for number, (view, key) in enumerate(zip(views, where, strict=True)):
            deal_key: Any = (relative, number) if key is None else key[3]
            by_deal.setdefault(deal_key, []).append((relative, view, key))
            if deal_key not in titles:
                titles[deal_key] = (
                    view["title"] if key is None else f"deal {key[3] + 1}, {_where(key)}"
                )
    deals: list[dict[str, Any]] = []
    counts = dict.fromkeys(histories, 0)
    keys: list[list[tuple[int, ...]]] = []
    for deal_key, tables in by_deal.items():
        if len(tables) > budget:
            break
        budget -= len(tables)
        for relative, view, key in tables:
            counts[relative] += 1
            if key is not None:
                view["title"] = f"table {key[2]}"
        deals.append(deal_view(titles[deal_key], [view for _, view, _ in tables]))
        keys.append([key for _, _, key in tables if key is not None])
    return deals, counts, keys


def _where(key: tuple[int, ...]) -> str:
    session, section, _, _ = key
    return f"session {session}, section {section}"


def history_stem(history: str) -> str:
    """``histories/s01-x02-t03.phhs`` -> ``s01-x02-t03``: the name its page takes."""
    return Path(history).name.removesuffix(".phhs").removesuffix(".phh")


def _histories(run_dir: Path | None) -> list[str]:
    """The run's history files, as its results.json lists them (safe names only)."""
    if run_dir is None:
        return []
    try:
        listed = json.loads(RunDir(run_dir).results.read_text(encoding="utf-8"))["histories"]
    except (OSError, ValueError, RecursionError, KeyError, TypeError):
        return []
    if not isinstance(listed, list):
        return []
    return [name for name in listed if isinstance(name, str) and _HISTORY.fullmatch(name)]


def _views(path: Path) -> tuple[list[dict[str, Any]], list[tuple[int, ...] | None]]:
    """The viewer's hands of one history file, and where each was dealt (session,
    section, table, deal from 0), as the run wrote them; a hand that does not replay is
    left out."""
    try:
        hands = load_histories(read_text(path), file=path.name)
    except HandHistoryError:
        return [], []
    views: list[dict[str, Any]] = []
    where: list[tuple[int, ...] | None] = []
    for hand in hands:
        try:
            state = replay_hand(hand).state
        except HandHistoryError:
            continue
        fields = hand.fields
        names = fields.get("players")
        if not (isinstance(names, list) and len(names) == state.seat_count):
            names = [f"p{index + 1}" for index in range(state.seat_count)]
        values = [fields.get(name) for name in _WHERE]
        key: tuple[int, ...] | None = None
        title = hand.where
        if all(type(value) is int for value in values):
            key = tuple(int(str(value)) for value in values)
            session, section, table, deal = key
            title = f"deal {deal + 1}, session {session}, section {section}, table {table}"
        try:
            views.append(hand_view(state, [str(name) for name in names], title=title))
        except ValueError:  # not a finished hand
            continue
        where.append(key)
    return views, where
