"""The clairvoyance test where it is published: a bot that knows every card, in a
regular tournament of built-ins, is flagged in results.json, the summary, ``dp-arena
verify``, the leaderboard's data, its Markdown and its page; the honest entrant beside
it is not, and the built-ins (the house's own code) are not tested."""

from __future__ import annotations

from pathlib import Path

import pytest

from dp_arena.agents.spec import AGENTS_DIR
from dp_arena.leaderboard.model import LeaderboardOptions
from dp_arena.leaderboard.publish import publish
from dp_arena.runner.verify import verify_run
from tests import run_files
from tests.ratings.clairvoyant_bot import SEED
from tests.ratings.conftest import play_event

BOT = Path(__file__).with_name("clairvoyant_bot.py")
CONFIG = f"""
[event]
name = "A clairvoyant among built-ins"
format = "regular"
seed = {SEED}

[table]
deals = {{ "3" = 45 }}
round_robin_deals = 12

[[entrants]]
name = "seer"
agent = "{BOT}:AllKnowing"
trusted = true

[[entrants]]
name = "honest"
agent = "{AGENTS_DIR / "tag.py"}:TightAggressiveBot"
trusted = true

[field]
count = 10
from = ["tag", "calling-station", "random", "aggressive"]
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return play_event(tmp_path_factory.mktemp("clairvoyant"), CONFIG)


def test_the_run_flags_the_clairvoyant_alone(run: Path) -> None:
    results = run_files.results(run)
    assert results["clairvoyance"]["flagged"] == ["seer"]
    tests = {entrant["player"]: entrant["clairvoyance"] for entrant in results["entrants"]}
    assert tests["seer"]["flagged"] and tests["seer"]["p"] < 1e-6
    assert not tests["honest"]["flagged"]
    assert all(test is None for player, test in tests.items() if player not in ("seer", "honest"))
    summary = (run / "summary.txt").read_text(encoding="utf-8")
    assert "CLAIRVOYANCE" in summary and "  seer: z " in summary
    verification = verify_run(run)
    assert verification.passed
    (check,) = [check for check in verification.checks if check.name == "clairvoyance"]
    assert "flagged: seer" in check.detail


def test_the_leaderboard_shows_the_flag(run: Path, tmp_path: Path) -> None:
    published = publish([run], tmp_path / "out", LeaderboardOptions(resamples=100))
    rows = {row["name"]: row for row in published.data["ranking"]}
    # Ranked by bot: the clairvoyant is named by its code.
    seer = next(row for name, row in rows.items() if "AllKnowing" in name)
    assert seer["clairvoyance"]["flagged_in"] and seer["clairvoyance"]["p"] < 1e-6
    others = [row for row in rows.values() if row is not seer]
    assert others and all(
        row["clairvoyance"] is None or not row["clairvoyance"]["flagged_in"] for row in others
    )
    assert any(row["clairvoyance"] is None for row in others)  # the built-ins: not tested
    readme = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "**FLAGGED**" in readme and "Clairvoyance test" in readme
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "Flagged by the clairvoyance test" in page and 'id="clairvoyance"' in page
