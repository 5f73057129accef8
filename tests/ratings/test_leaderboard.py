"""Published leaderboards: the data against the scores it comes from, byte-identical
files for the same inputs, untrusted names escaped everywhere, the page rendered by a
real browser without errors, and the command line."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from dp_arena.cli import main
from dp_arena.leaderboard import LeaderboardOptions, build_leaderboard, load_runs, publish
from dp_arena.leaderboard.publish import FILES
from dp_arena.ratings.duplicate import score_matrix
from tests import run_files
from tests.ratings.chromium import find_browser, open_page

HOSTILE_PLAYER = '<script>alert("pwned")</script>'
HOSTILE_SPEC = '"><img src=x onerror=alert(1)>\x1b[2J'


def test_data_agrees_with_the_scores(small_run: Path) -> None:
    events = load_runs([small_run])
    data = build_leaderboard(events, LeaderboardOptions(resamples=300))
    matrix = score_matrix(events[0].blocks, events[0].bots().__getitem__)
    assert [row["name"] for row in data["ranking"]] == sorted(
        matrix.names, key=lambda name: -matrix.mean(name)
    )
    for row in data["ranking"]:
        assert row["mbb_per_deal"] == round(float(matrix.mean(row["name"])), 3)
        assert row["ci"][0] <= row["mbb_per_deal"] <= row["ci"][1]
        assert row["rank_interval"][0] <= row["rank"] <= row["rank_interval"][1]
    assert sum(row["p_first"] for row in data["ranking"]) == pytest.approx(1, abs=0.01)
    # Two tag entrants, pooled: tag played twice as many plays as any other bot.
    plays = {row["name"]: row["plays"] for row in data["ranking"]}
    assert plays["tag"] == 2 * plays["random"] == 60
    assert data["deals"] == 30 and data["settings"]["adjusted"]["applied"] is True
    assert {row["bot"] for row in data["ratings"]} == set(matrix.names)
    # The adjusted score beside the raw one takes out the luck of the board and of the
    # dealer's draws from mixed strategies, by default.
    assert data["settings"]["adjusted"]["key"] == "board+action"
    assert data["settings"]["adjusted"]["terms"] == ["board", "action"]
    adjusted = score_matrix(events[0].blocks, events[0].bots().__getitem__, adjusted=True)
    for row in data["ranking"]:
        assert row["adjusted"]["mbb_per_deal"] == round(float(adjusted.mean(row["name"])), 3)
    assert any(row["adjusted"]["mbb_per_deal"] != row["mbb_per_deal"] for row in data["ranking"])


def test_ranking_by_player_keeps_two_copies_apart(small_run: Path) -> None:
    data = build_leaderboard(load_runs([small_run]), LeaderboardOptions(by="player", resamples=200))
    rows = {row["name"]: row for row in data["ranking"]}
    assert {"tag-a", "tag-b"} <= set(rows)
    assert rows["tag-a"]["bot"] == rows["tag-b"]["bot"] == "tag"
    assert rows["tag-a"]["rating"] == rows["tag-b"]["rating"]  # one rating per bot


def test_published_files_are_byte_identical(small_run: Path, tmp_path: Path) -> None:
    options = LeaderboardOptions(title="Same", resamples=200)
    publish([small_run], tmp_path / "first", options)
    copy = tmp_path / "elsewhere" / small_run.name
    shutil.copytree(small_run, copy)  # the same results in another place
    publish([copy], tmp_path / "second", options)
    for name in FILES:
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "second" / name).read_bytes()
    assert str(tmp_path) not in (tmp_path / "first" / "leaderboard.json").read_text()


PAGE_TAGS = {
    "html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "h3", "p", "a",
    "table", "thead", "tbody", "tr", "th", "td", "section", "div", "code", "script", "h4",
    "svg", "line", "text", "circle", "rect", "polyline", "details", "summary", "span",
}  # fmt: skip


class _Tags(HTMLParser):
    """Counts the tags and attribute names of a page, and collects its texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: Counter[str] = Counter()
        self.attributes: set[str] = set()
        self.texts: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        self.attributes |= {name for name, _ in attrs}

    def handle_data(self, data: str) -> None:
        self.texts.add(data)


def _hostile_copy(small_run: Path, folder: Path) -> Path:
    """The fixture's results with an entrant renamed to a script and a code name that
    breaks out of an attribute (results are untrusted: names come from submitters)."""
    run_files.copy_results(
        small_run, folder, lambda text: text.replace('"caller"', json.dumps(HOSTILE_PLAYER))
    )

    def hostile(data: dict) -> None:  # type: ignore[type-arg]
        for entrant in data["entrants"]:
            if entrant["player"] == "aggro":
                entrant["spec"] = HOSTILE_SPEC
                entrant["code"] = {"kind": "file", "name": HOSTILE_SPEC, "version": None}
                entrant["code"]["sha256"] = "ab" * 32

    run_files.edit_results(folder, hostile)
    return folder


def test_untrusted_names_are_escaped_everywhere(small_run: Path, tmp_path: Path) -> None:
    run = _hostile_copy(small_run, tmp_path / "hostile")
    published = publish([run], tmp_path / "out", LeaderboardOptions(by="player", resamples=200))
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    parser = _Tags()
    parser.feed(page)
    # What an HTML parser finds: the page's own script only, no image, no handler.
    assert parser.tags["script"] == 1
    assert "img" not in parser.tags
    assert not [name for name in parser.attributes if name.startswith("on")]
    assert set(parser.tags) <= PAGE_TAGS
    assert HOSTILE_PLAYER in parser.texts
    assert "&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;" in page
    assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    readme = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "<script" not in readme and "<img" not in readme
    assert "&lt;script&gt;" in readme
    # Ranked by bot, the hostile code is a name in the table: its terminal escape is defused.
    publish([run], tmp_path / "by-bot", LeaderboardOptions(resamples=200))
    by_bot = (tmp_path / "by-bot" / "README.md").read_text(encoding="utf-8")
    assert "\x1b" not in by_bot and "\\\\x1b\\[2J" in by_bot and "<img" not in by_bot
    # The data keeps the names as they are: it is data, not markup.
    names = {row["name"] for row in published.data["ranking"]}
    assert HOSTILE_PLAYER in names


BROWSER = find_browser()
needs_browser = pytest.mark.skipif(
    BROWSER is None,
    reason="no chromium on PATH: install Debian's `chromium` (make/CI do) to test the page",
)


@needs_browser
def test_the_page_renders_in_a_browser_without_errors(small_run: Path, tmp_path: Path) -> None:
    publish([small_run], tmp_path / "out", LeaderboardOptions(title="Browser test", resamples=200))
    report = open_page(
        BROWSER,  # type: ignore[arg-type]
        tmp_path / "out" / "index.html",
        {
            "title": "document.querySelector('h1').textContent",
            "rows": "document.querySelectorAll('#ranking tbody tr').length",
            "first": "document.querySelector('#ranking tbody tr td:nth-child(2)').textContent",
            "charts": "document.querySelectorAll('svg').length",
            "ready": "document.documentElement.getAttribute('data-ready')",
            "styled": "getComputedStyle(document.querySelector('table')).borderCollapse",
            # Sorting by mbb/deal (click once: ascending) puts the last bot first.
            "sorted": "document.querySelector('#ranking th:nth-child(4)').click(),"
            " document.querySelector('#ranking tbody tr td:nth-child(2)').textContent",
        },
    )
    screenshot = os.environ.get("DP_ARENA_SCREENSHOT")
    if screenshot:  # to look at the page: DP_ARENA_SCREENSHOT=/tmp/page.png pytest ...
        Path(screenshot).write_bytes(report.screenshot)
    data = json.loads((tmp_path / "out" / "leaderboard.json").read_text())
    assert report.errors == []
    assert report.values["title"] == "Browser test"
    assert report.values["rows"] == len(data["ranking"]) == 5
    assert report.values["first"] == data["ranking"][0]["label"]
    assert report.values["sorted"] == data["ranking"][-1]["label"]
    assert report.values["ready"] == "yes"  # the inline script ran: the policy allows it
    assert report.values["styled"] == "collapse"  # and the inline style sheet applied
    assert report.values["charts"] == 2 + len(data["ranking"])  # two charts, one histogram each
    assert report.screenshot.startswith(b"\x89PNG")


@needs_browser
def test_hostile_names_do_not_run_in_a_browser(small_run: Path, tmp_path: Path) -> None:
    run = _hostile_copy(small_run, tmp_path / "hostile")
    publish([run], tmp_path / "out", LeaderboardOptions(by="player", resamples=200))
    report = open_page(
        BROWSER,  # type: ignore[arg-type]
        tmp_path / "out" / "index.html",
        {
            "scripts": "document.scripts.length",
            "images": "document.images.length",
            "names": "Array.from(document.querySelectorAll('#ranking tbody tr td:nth-child(2)'))"
            ".map(cell => cell.textContent)",
        },
    )
    assert report.errors == [] and report.dialogs == []
    assert (report.values["scripts"], report.values["images"]) == (1, 0)
    assert HOSTILE_PLAYER in report.values["names"]


def test_two_runs_make_a_rating_history(small_run: Path, tmp_path: Path) -> None:
    second = tmp_path / "second-run"
    shutil.copytree(small_run, second)
    (second / "timing.json").write_text(json.dumps({"finished": "9999-01-01T00:00:00"}))
    data = json.loads((second / "results.json").read_text())
    data["event"]["name"] = "Ratings fixture, again"
    (second / "results.json").write_text(json.dumps(data))
    board = build_leaderboard(load_runs([second, small_run]), LeaderboardOptions(resamples=200))
    assert [event["label"] for event in board["events"]] == [small_run.name, "second-run"]
    assert board["deals"] == 60
    for row in board["ratings"]:
        assert [point["index"] for point in row["history"]] == [1, 2]
        assert row["events"] == 2


def test_the_same_run_twice_is_refused(small_run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(small_run, copy)
    with pytest.raises(ValueError, match="given twice"):
        load_runs([small_run, copy])


def test_command_line(small_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "leaderboards" / "fixture"
    status = main(
        ["leaderboard", "publish", str(small_run), "--out", str(out), "--resamples", "200"]
    )
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert all((out / name).is_file() for name in FILES)
    # The title is the event's name, not the folder's.
    assert json.loads((out / "leaderboard.json").read_text())["title"] == "Ratings fixture"
    assert "wrote" in captured.out
    assert main(["leaderboard", "show", str(small_run), "--resamples", "200", "--no-equity"]) == 0
    shown = capsys.readouterr().out
    assert "| Rank | Entrants | Code |" in shown
    assert "Luck-adjusted" not in shown and "All-in adjusted" not in shown
    # Nothing was written: no link to a file that is not there; and the real reason.
    assert "index.html" not in shown and "leaderboard.json" not in shown
    assert "No adjusted score: left out (--adjusted none)." in shown
    assert (
        main(["leaderboard", "show", str(small_run), "--resamples", "50", "--adjusted", "all-in"])
        == 0
    )
    shown = capsys.readouterr().out
    assert "All-in adjusted" in shown and "Luck-adjusted" not in shown
    assert main(["leaderboard", "show", str(tmp_path / "nowhere")]) == 2
    assert "is not a finished run directory" in capsys.readouterr().err


def test_runs_without_duplicate_deals_are_refused(tmp_path: Path) -> None:
    # A classic freezeout's results: no sessions of mirrored tables, nothing to compare.
    run = tmp_path / "classic"
    run.mkdir()
    results = {
        "event": {"name": "Classic", "format": "classic", "seed": 1},
        "entrants": [{"player": "tag-1", "spec": "tag", "trusted": True}],
        "plan": {"sessions": []},
        "sessions": [],
        "prizes": {"by_player": {"tag-1": 200}},
        "faults": [],
    }
    (run / "results.json").write_text(json.dumps(results), encoding="utf-8")
    with pytest.raises(ValueError, match="no duplicate deals to score"):
        build_leaderboard(load_runs([run]), LeaderboardOptions())


def test_a_run_dealt_from_a_secret_key_publishes(tmp_path: Path) -> None:
    """Real events name no seed: their results reveal a key, and publishing takes them."""
    from .conftest import FIXTURE_CONFIG, play_event

    run_dir = play_event(tmp_path, FIXTURE_CONFIG.replace("seed = 11\n", ""), name="secret")
    results = json.loads((run_dir / "results.json").read_text())
    assert results["event"]["seed"] is None and results["event"]["predictable"] is False
    out = tmp_path / "published"
    assert main(["leaderboard", "publish", str(run_dir), "--out", str(out)]) == 0
    page = (out / "index.html").read_text()
    assert "Ratings fixture" in page and "secret, revealed" in page


def test_every_mark_of_the_interval_chart_lies_inside_it() -> None:
    """Each row's bar, dot and dashed adjusted bar fall within the chart's width, at the
    row's own values: the scale is the chart's, whatever a row is named."""
    from dp_arena.leaderboard.charts import ci_chart

    rows = [
        {"name": "a", "color": "#000", "mean": 50.0, "low": -20.0, "high": 120.0}
        | {"adjusted_mean": 40.0, "adjusted_low": 10.0, "adjusted_high": 70.0},
        {"name": "b", "color": "#111", "mean": -300.0, "low": -900.0, "high": 200.0},
    ]
    svg = ci_chart(rows, title="t")
    width = float(svg.split('width="', 1)[1].split('"', 1)[0])
    xs = [float(value) for value in re.findall(r' (?:x1|x2|cx)="(-?[0-9.]+)"', svg)]
    assert xs and all(0 <= value <= width for value in xs)
    # The dot of the mean lies on the bar of the interval, for both rows.
    for low, high, mean in re.findall(
        r'<line x1="([0-9.]+)" x2="([0-9.]+)"[^>]*stroke-width="4"[^>]*/><circle cx="([0-9.]+)"',
        svg,
    ):
        assert float(low) < float(mean) < float(high)
