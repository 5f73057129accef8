"""The hand replay viewer: frames that follow the engine, a page that escapes what bots
name themselves, and (in headless Chromium) a page that steps through the hands."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dp_arena.engine import Action, Betting, HandState, TableRules, parse_cards
from dp_arena.leaderboard.replay import hand_view, render_replay_page
from tests.ratings.chromium import find_browser, open_page

from .helpers import cli

HOSTILE = '<img src=x onerror=alert(1)></script><script>alert("pwned")</script>'


def _hand() -> HandState:
    rules = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
    state = HandState(
        rules,
        button=0,
        stacks=(1000, 1000),
        hole_cards=(parse_cards("AsAh"), parse_cards("Kd7c")),
        board=parse_cards("2c7d9hJsQs"),
    )
    for action in (Action.raise_to(60), Action.call(), Action.check(), Action.raise_to(80)):
        state.apply(action)
    state.apply(Action.fold())
    return state


def test_frames_follow_the_hand_street_by_street() -> None:
    view = hand_view(_hand(), ["alice", "bob"], title="deal 1")
    frames = view["frames"]
    assert [frame["text"] for frame in frames] == [
        "blinds posted",
        "alice raises to 60",
        "bob calls 40",
        "bob checks",
        "alice raises to 80",
        "bob folds",
        "alice wins 60",
    ]
    assert [frame["pot"] for frame in frames] == [30, 80, 120, 120, 200, 200, 200]
    assert [frame["street"] for frame in frames[:4]] == ["preflop", "preflop", "flop", "flop"]
    assert frames[0]["board"] == "" and frames[3]["board"] == "2c7d9h"
    assert view["nets"] == [60, -60] and view["hole"] == ["AsAh", "Kd7c"]


def test_the_page_escapes_names_and_embeds_hands_safely() -> None:
    page = render_replay_page([hand_view(_hand(), [HOSTILE, "bob"], title=HOSTILE)], title=HOSTILE)
    assert "<img" not in page and '<script>alert("pwned")' not in page
    embedded = re.search(
        r'<script type="application/json" id="hands">(.*?)</script>', page, re.DOTALL
    )
    assert embedded is not None and "</" not in embedded.group(1)
    assert json.loads(embedded.group(1))[0]["players"][0] == HOSTILE


@pytest.mark.skipif(
    find_browser() is None, reason="no Chromium here (.ci/system-deps.sh installs it)"
)
def test_the_viewer_steps_through_hands_in_chromium(tmp_path: Path) -> None:
    histories = tmp_path / "run"
    # PHH files of a real event: the demo's first table-session.
    run = cli(
        "run",
        "configs/demo.toml",
        "--run-dir",
        str(histories),
        "--executor",
        "serial",
        "--quiet",
        cwd=Path(__file__).resolve().parents[2],
    )
    assert run.returncode == 0, run.stderr
    # The first section's four mirrored tables (of three seats), given together.
    section = sorted((histories / "histories").glob("s01-x01-t*.phhs"))
    assert len(section) == 4
    page = tmp_path / "hands.html"
    done = cli("replay", *map(str, section), "--html", str(page))
    assert done.returncode == 0 and page.is_file()
    report = open_page(
        find_browser() or "",
        page,
        {
            "hands": "document.querySelectorAll('[data-role=hands] option').length",
            "title": "document.querySelector('[data-role=title]').textContent",
            "first": "document.querySelector('[data-role=step]').textContent",
            "tables": "document.querySelectorAll('.replay-table').length",
            "logs": "[...document.querySelectorAll('.replay-log')].map(log => log.children.length)",
            "results": "[...document.querySelectorAll('.replay-result')].map(r => r.textContent)",
            "stepped": "(() => { document.querySelector('[data-go=start]').click();"
            " const b = document.querySelector('[data-go=step]'); b.click(); b.click();"
            " return document.querySelector('[data-role=step]').textContent; })()",
            "seats": "document.querySelectorAll('.replay-seats li').length",
            "big": "(() => { const s = document.querySelector('[data-role=big]');"
            " s.value = s.options[1].value; s.dispatchEvent(new Event('change'));"
            " return document.querySelector('.replay-pot').textContent; })()",
            "wide": "document.documentElement.scrollWidth <= window.innerWidth",
        },
        width=390,
        height=900,
        mobile=True,
    )
    (tmp_path / "hands.png").write_bytes(report.screenshot)
    assert report.errors == []
    # Each deal at its four tables side by side, opened at its end: every table's
    # action log and result in view.
    assert report.values["hands"] >= 5
    assert report.values["title"].startswith("deal 1, session 1, section 1 — 4 tables")
    assert "the end: every table's result" in report.values["first"]
    assert report.values["tables"] == 4
    assert all(lines >= 2 for lines in report.values["logs"])
    assert all(result.startswith("result: ") for result in report.values["results"])
    assert report.values["stepped"].startswith("step 2 of")
    assert report.values["seats"] == 4 * 3
    assert report.values["big"].startswith("showdown") or "pot" in report.values["big"]
    assert report.values["wide"] is True
