"""An event with an entrant that never played (it could not load) and the numbers every
reader of it sees: the entrant is out of the skill rankings, the ratings and the
head-to-head tables, listed apart with why, while the event's standings keep it by the
rules; the count of entrants, deals and table-deals is said the same way by dp-arena run,
verify, the published page, its Markdown and leaderboard.json; the paid places are the
shaded rows, and no column header is empty."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dp_arena.cli import main
from dp_arena.leaderboard import publish
from dp_arena.leaderboard.model import LeaderboardOptions
from tests.ratings.chromium import find_browser, open_page

CONFIG = """[event]
name = "Absent cup"
format = "regular"
seed = 7

[money]
buy_in_cents = 1000
fee_cents = 100

[[entrants]]
name = "bob"
agent = "bots/broken.py:Bot"

[field]
count = 9
from = ["random", "calling-station", "tag", "aggressive"]
"""


def test_an_entrant_that_never_played_is_not_ranked_and_every_count_agrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "event"
    (root / "bots").mkdir(parents=True)
    (root / "bots" / "broken.py").write_text(
        "import no_such_module_here\n\nclass Bot:\n    def act(self, o): ...\n"
    )
    (root / "event.toml").write_text(CONFIG)
    run_dir = root / "run"
    run_text = str(run_dir)
    arguments = ["run", str(root / "event.toml"), "--run-dir", run_text, "--executor", "serial"]
    assert main([*arguments, "--quiet", "--allow-absent"]) == 0
    said = capsys.readouterr().out
    assert main(["verify", run_text]) == 0
    checked = capsys.readouterr().out
    published = publish([run_dir], tmp_path / "out", LeaderboardOptions(resamples=100))
    data = published.data
    # Not ranked: no score, rating, head-to-head row or details; listed apart, with why.
    [bot] = [row["name"] for row in data["unranked"]]
    assert "no_such_module_here" in data["unranked"][0]["reason"]
    assert bot not in [row["name"] for row in data["ranking"]]
    assert bot not in data["pairwise"]["order"]
    assert bot not in [row["bot"] for row in data["ratings"]]
    assert bot not in [row["name"] for row in data["competitors"]]
    assert bot not in data["distributions"]["counts"]
    # The standings keep it by the rules, marked absent with its reason.
    [event] = data["events"]
    [bob] = [standing for standing in event["standings"] if standing["player"] == "bob"]
    assert bob["status"] == "absent"
    # One count of entrants, deals and table-deals, said the same way everywhere.
    results = json.loads((run_dir / "results.json").read_text())
    deals = results["plan"]["deals"]
    table_deals = event["table_deals"]
    counted = f"{deals} deals ({table_deals} table-deals)"
    assert data["deals"] == event["deals"] == deals and data["table_deals"] == table_deals
    entrants = f"{len(results['entrants'])} entrants, 1 of them absent (did not load)"
    assert f"the event: {entrants}, {counted}" in said
    assert f"{table_deals} table-deals played in" in said
    assert f"decks: {counted} at " in checked and f"hands: {counted} replay" in checked
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert f"{entrants}, {counted};" in page
    assert "Not ranked" in page and "no_such_module_here" in page.split("Not ranked")[1]
    markdown = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert f"{entrants}, {counted}." in markdown and "Not ranked" in markdown
    # No header without words: the standings' last column says what it holds.
    assert not re.search(r"<th( class=\"[^\"]*\")?></th>", page)
    browser = find_browser()
    if browser is None:
        pytest.skip("no Chromium here: the shading of the paid places was not looked at")
    seen = open_page(
        browser,
        tmp_path / "out" / "index.html",
        {
            "shaded": "[...document.querySelectorAll('table.standings tbody tr')].map(row =>"
            " getComputedStyle(row.cells[0]).backgroundColor !== 'rgba(0, 0, 0, 0)')",
            "paid": "[...document.querySelectorAll('table.standings tbody tr')].map(row =>"
            " row.querySelector('td.prize') !== null)",
        },
        width=1280,
        height=2000,
    )
    (tmp_path / "event.png").write_bytes(seen.screenshot)
    assert seen.errors == []
    assert seen.values["shaded"] == seen.values["paid"]
    assert seen.values["paid"].count(True) == sum(
        1 for row in event["standings"] if row["prize_cents"]
    )
