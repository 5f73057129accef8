"""An event as an organiser publishes it: entrants named by player and code (never by a
path of the organiser's machine), the event's own result first (places, prizes, the
flow), benched and absent entrants said out loud, and a page that reads at desktop and
at phone width in a real browser."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from dp_arena.leaderboard import LeaderboardOptions, publish
from dp_arena.leaderboard.publish import FILES, compute
from dp_arena.progress import ProgressLine
from tests import run_files
from tests.ratings.chromium import find_browser, open_page
from tests.ratings.conftest import play_event

BOTS = '''
from dp_arena.engine import Action


class Tighty:
    """Calls and checks: a bot that never faults."""

    def act(self, observation):
        return Action.call() if observation.to_call else Action.check()


class Illegal:
    """Raises to one chip, never legal: three faults bench it at every table-session."""

    def act(self, observation):
        return Action.raise_to(1)
'''

CONFIG = """
[event]
name = "Organiser's cup"
format = "regular"
seed = 31

[[entrants]]
name = "Tighty"
agent = "../mybot/bot.py:Tighty"
trusted = true

[[entrants]]
name = "illegal"
agent = "../mybot/bot.py:Illegal"
trusted = true

[field]
count = 10
from = ["random", "calling-station", "tag", "aggressive"]
"""


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 12-entrant regular tournament (4 tables x 3, a semifinal, a round-robin final)
    with two file bots beside the event's folder, one of which is benched every time."""
    root = tmp_path_factory.mktemp("organiser")
    (root / "mybot").mkdir()
    (root / "mybot" / "bot.py").write_text(BOTS, encoding="utf-8")
    return play_event(root / "event", CONFIG, name="cup-run")


def _bot_file_hash(folder: Path) -> str:
    """The content hash of a file bot that imports nothing of its folder, computed here
    from its definition (docs/results.md): SHA-256 over its file's name and content hash."""
    content = hashlib.sha256((folder / "bot.py").read_bytes()).hexdigest()
    return hashlib.sha256(f"dp-arena/files/v1\nbot.py\0{content}\n".encode()).hexdigest()


def test_results_name_each_entrants_code_without_a_path(cup: Path) -> None:
    results = json.loads((cup / "results.json").read_text(encoding="utf-8"))
    codes = {entrant["player"]: entrant["code"] for entrant in results["entrants"]}
    digest = _bot_file_hash(cup.parent.parent / "mybot")
    assert codes["Tighty"] == {
        "kind": "file",
        "name": "bot.py:Tighty",
        "version": None,
        "sha256": digest,
        "imports": [],
    }
    assert codes["illegal"]["name"] == "bot.py:Illegal" and codes["illegal"]["sha256"] == digest
    assert codes["tag-1"]["kind"] == "builtin" and codes["tag-1"]["name"] == "tag"
    assert "mybot" not in json.dumps(codes) and str(cup.parent) not in json.dumps(codes)
    summary = (cup / "summary.txt").read_text(encoding="utf-8")
    assert f"bot.py:Tighty #{digest[:8]}" in summary and "tag (built-in)" in summary
    assert "mybot" not in summary


def test_published_files_name_entrants_never_a_path(cup: Path, tmp_path: Path) -> None:
    published = publish([cup], tmp_path / "out", LeaderboardOptions(resamples=200))
    results = run_files.results(cup)
    for name in FILES:
        text = (tmp_path / "out" / name).read_text(encoding="utf-8")
        assert "mybot" not in text and str(cup.parent.parent) not in text, name
    data = published.data
    assert data["title"] == "Organiser's cup"  # the event's name, not the folder's
    [event] = data["events"]
    # The event's own result: every entrant's place and prize, the winner first.
    assert [row["player"] for row in event["standings"]] == [
        row["player"] for row in results["standings"]
    ]
    assert event["standings"][0]["prize_cents"] == results["standings"][0]["prize_cents"] > 0
    by_player = {row["player"]: row for row in event["standings"]}
    digest = _bot_file_hash(cup.parent.parent / "mybot")
    assert by_player["Tighty"]["code"] == f"bot.py:Tighty #{digest[:8]}"
    # The flow: who went on from each seat position of the semifinal, with carryover.
    semifinal = event["sessions"][1]
    went_on = {
        row["player"]
        for section in semifinal["sections"]
        for position in section["seat_positions"]
        for row in position["players"]
        if row["advanced"]
    }
    assert went_on == set(results["sessions"][1]["advancing"]) and len(went_on) == 6
    assert event["sessions"][-1]["kind"] == "round-robin"
    readme = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert readme.index("## Final standings") < readme.index("## Duplicate scores")
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert page.index('id="standings"') < page.index('id="ranking"')
    assert "<title>Organiser&#x27;s cup</title>" in page


def _benched_by_hand(results: dict) -> list[tuple[int, int, int]]:  # type: ignore[type-arg]
    """(session, table, deals sat out) of every table-session of the illegal bot, from
    its faults: benched by its third fault, it sits out every later deal."""
    found = []
    for session in results["sessions"]:
        groups = session.get("sections") or session.get("matches") or []
        for group in groups:
            for table in group["table_results"]:
                mine = [f for f in table["faults"] if f["player"] == "illegal"]
                if len(mine) >= 3:
                    deals = len(table["deal_nets"])
                    found.append((session["session"], table["table"], deals - 1 - mine[2]["deal"]))
    return found


def test_benching_is_said_in_the_summary_the_data_and_the_page(cup: Path, tmp_path: Path) -> None:
    results = run_files.results(cup)
    expected = _benched_by_hand(results)
    assert expected and all(out > 0 for _, _, out in expected)
    summary = (cup / "summary.txt").read_text(encoding="utf-8")
    assert "benched (played on as absent players after faults):" in summary
    lines = [line for line in summary.splitlines() if line.startswith("  illegal: sat out")]
    assert len(lines) == len(expected)
    for line, (session, table, out) in zip(lines, expected, strict=True):
        assert line.startswith(f"  illegal: sat out {out} of ")
        assert f"(session {session}, " in line and f", table {table}): 3 faults" in line
    published = publish([cup], tmp_path / "out", LeaderboardOptions(by="player", resamples=200))
    [event] = published.data["events"]
    assert [(b["session"], b["table"], b["deals_out"]) for b in event["benched"]] == expected
    assert all(b["reason"] == "3 faults (ILLEGAL x3)" for b in event["benched"])
    [row] = [row for row in published.data["ranking"] if row["name"] == "illegal"]
    assert row["benched_deals"] == sum(out for _, _, out in expected)
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "3 faults (ILLEGAL x3)" in page and f"{expected[0][2]} of " in page
    readme = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert f"- illegal: sat out {expected[0][2]} of" in readme


def test_absent_entrants_are_marked(cup: Path, tmp_path: Path) -> None:
    # A run that played with an entrant its preflight check left out marks it in
    # results.json; the page and the README say so, with the reason.
    copy = tmp_path / "runs" / "cup-absent"
    shutil.copytree(cup, copy)
    results = json.loads((copy / "results.json").read_text(encoding="utf-8"))
    for entrant in results["entrants"]:
        if entrant["player"] == "Tighty":
            entrant["status"] = "absent"
            entrant["absent_reason"] = "could not load bot.py:Tighty (no such class)"
    (copy / "results.json").write_text(json.dumps(results), encoding="utf-8")
    published = publish([copy], tmp_path / "out", LeaderboardOptions(resamples=200))
    [event] = published.data["events"]
    [tighty] = [row for row in event["standings"] if row["player"] == "Tighty"]
    assert tighty["status"] == "absent"
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    readme = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "absent: never played" in page and "could not load bot.py:Tighty (no such class)" in page
    assert "- Tighty: could not load bot.py:Tighty (no such class)" in readme
    # A reason is text from the run (a bot's error message may be in it): escaped.
    for entrant in results["entrants"]:
        if entrant["player"] == "Tighty":
            entrant["absent_reason"] = '<script>alert("pwned")</script>'
    (copy / "results.json").write_text(json.dumps(results), encoding="utf-8")
    publish([copy], tmp_path / "hostile", LeaderboardOptions(resamples=200))
    page = (tmp_path / "hostile" / "index.html").read_text(encoding="utf-8")
    readme = (tmp_path / "hostile" / "README.md").read_text(encoding="utf-8")
    assert page.count("<script") == 1 and "&lt;script&gt;alert(&quot;pwned&quot;)" in page
    assert "<script" not in readme and "&lt;script&gt;" in readme


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_publishing_shows_progress_on_a_terminal_only(cup: Path) -> None:
    terminal, pipe = _Terminal(), io.StringIO()
    options = LeaderboardOptions(resamples=50)
    compute([cup], options, ProgressLine(terminal, timed=True))
    compute([cup], options, ProgressLine(pipe, timed=True))
    tables = sum(
        len(group["table_results"])
        for session in run_files.results(cup)["sessions"]
        for group in session.get("sections") or session.get("matches")
    )
    shown = terminal.getvalue()
    assert f"Luck-adjusted, cup-run: {tables:,}/{tables:,} table-sessions" in shown
    assert "bootstrap (50 resamples) and ratings ..." in shown
    assert shown.endswith("\r\x1b[K")  # the line is cleared for what the command prints
    assert pipe.getvalue() == ""


BROWSER = find_browser()


@pytest.mark.skipif(
    BROWSER is None,
    reason="no chromium on PATH: install Debian's `chromium` (make/CI do) to test the page",
)
@pytest.mark.parametrize(("width", "mobile"), [(1280, False), (390, True)])
def test_the_page_reads_at_desktop_and_phone_width(
    cup: Path, tmp_path: Path, width: int, mobile: bool
) -> None:
    publish([cup], tmp_path / "out", LeaderboardOptions(by="player", resamples=200))
    data = json.loads((tmp_path / "out" / "leaderboard.json").read_text(encoding="utf-8"))
    report = open_page(
        BROWSER,  # type: ignore[arg-type]
        tmp_path / "out" / "index.html",
        {
            "page_width": "document.documentElement.scrollWidth",
            "window_width": "innerWidth",
            "standings": "document.querySelectorAll('#standings tbody tr').length",
            "winner": "document.querySelector('#standings tbody tr td:nth-child(2)').textContent",
            "first_heading": "document.querySelector('h2').textContent",
            "pairwise_in_a_box": "document.querySelector('#pairwise').parentElement.className",
        },
        width=width,
        height=1600,
        mobile=mobile,
        full_page=True,
    )
    folder = os.environ.get("DP_ARENA_SCREENSHOTS")
    if folder:  # to look at the page: DP_ARENA_SCREENSHOTS=/tmp/shots pytest ...
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / f"event-page-{width}.png").write_bytes(report.screenshot)
    assert report.errors == []
    assert report.values["window_width"] == width
    assert report.values["page_width"] <= report.values["window_width"]  # no sideways scroll
    assert report.values["first_heading"] == "Final standings"
    assert report.values["standings"] == len(data["events"][0]["entrants"]) == 12
    assert report.values["winner"] == data["events"][0]["standings"][0]["player"]
    assert report.values["pairwise_in_a_box"] == "scroll"  # a wide table scrolls in its box


def test_every_table_sessions_hands_are_replayed_beside_the_page(cup: Path, tmp_path: Path) -> None:
    published = publish([cup], tmp_path / "out", LeaderboardOptions(resamples=200))
    results = json.loads((cup / "results.json").read_text(encoding="utf-8"))
    [event] = published.data["events"]
    pages = event["hands"]["pages"]
    # Every table-session's history, every hand of it, on its section's page (each deal
    # at all the section's tables side by side).
    assert [page["history"] for page in pages] == results["histories"]
    for page in pages:
        history = (cup / page["history"]).read_text(encoding="utf-8")
        assert page["hands"] == history.count("\nvariant = ")
        assert (tmp_path / "out" / page["file"]).is_file()
    assert event["hands"]["rendered"] == len(pages)
    index = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert f'<a href="{pages[0]["file"]}">' in index
    # Each fault's deal links to the hand it happened in.
    faults = [fault for fault in event["faults"] if fault["session"] is not None]
    assert faults and all(fault["hand"] for fault in faults)
    first = faults[0]
    page, number = first["hand"].split("#hand-")
    shown = (tmp_path / "out" / page).read_text(encoding="utf-8")
    hands = json.loads(
        re.search(r'id="hands">(.*?)</script>', shown, re.DOTALL).group(1)  # type: ignore[union-attr]
    )
    where = f"session {first['session']}, section {first['section']}"
    deal = first["deal"] + 1
    shown_deal = hands[int(number) - 1]
    assert shown_deal["title"] == f"deal {deal}, {where}"
    at_table = next(
        hand for hand in shown_deal["tables"] if hand["title"] == f"table {first['table']}"
    )
    assert first["player"] in at_table["players"]
    section = [page for page in pages if page["file"] == first["hand"].split("#")[0]]
    assert len(section) == len(shown_deal["tables"]) > 1
    # The same runs elsewhere give the same pages, byte for byte.
    copy = tmp_path / "elsewhere" / cup.name
    shutil.copytree(cup, copy)
    publish([copy], tmp_path / "again", LeaderboardOptions(resamples=200))
    for item in pages:
        assert (tmp_path / "out" / item["file"]).read_bytes() == (
            tmp_path / "again" / item["file"]
        ).read_bytes()
    if BROWSER is not None:  # the fault's link opens its hand
        report = open_page(
            BROWSER,
            f"{(tmp_path / 'out' / page).resolve().as_uri()}#hand-{number}",
            {"title": "document.querySelector('[data-role=title]').textContent"},
            width=1000,
            height=800,
        )
        assert report.errors == []
        assert report.values["title"].startswith(f"deal {deal}, {where} — ")


def test_at_most_so_many_hands_are_rendered(cup: Path, tmp_path: Path) -> None:
    """A deal at k tables counts k hands: with the budget of one deal of the first
    section, that deal alone is rendered, at all its tables."""
    full = publish([cup], tmp_path / "out", LeaderboardOptions(resamples=200))
    first_page = full.data["events"][0]["hands"]["pages"][0]["file"]
    tables = sum(
        1 for page in full.data["events"][0]["hands"]["pages"] if page["file"] == first_page
    )
    published = publish(
        [cup], tmp_path / "out", LeaderboardOptions(resamples=200), max_hands=tables
    )
    hands = published.data["events"][0]["hands"]
    assert hands["rendered"] == tables
    assert [page["hands"] for page in hands["pages"][:tables]] == [1] * tables
    assert [page["file"] for page in hands["pages"][tables:]] == [None] * (
        len(hands["pages"]) - tables
    )
    index = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert f"at most {tables} hand(s) are rendered for one publication" in index
    # Published again with fewer hands: the first publication's other pages are gone.
    assert len(list((tmp_path / "out" / "hands").rglob("*.html"))) == 1
    none = publish([cup], tmp_path / "none", LeaderboardOptions(resamples=200), max_hands=0)
    assert "hands" not in none.data["events"][0] and not (tmp_path / "none" / "hands").exists()
