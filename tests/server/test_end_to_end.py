"""The server end to end, over real HTTP against ``dp-arena serve`` on loopback: a fresh
database, two authors, two bots uploaded (one with ``dp-arena submit --server``, one
with a plain POST), the sandboxed checks, ladder matches, the leaderboard and a match
page read; then a kill -9 in the middle of a match, a restart, and everything read
again: nothing lost, the match cut short played again from its committed key.

The same test runs on SQLite always and on PostgreSQL where a server can be started."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from dp_arena.match import block_scores
from dp_arena.results import TableSessionResult
from dp_arena.server.matches import verify_match
from tests.ratings.chromium import find_browser, open_page

from .helpers import (
    CALLER,
    FOLDER,
    Server,
    add_author,
    bot_folder,
    cli,
    zip_folder,
)

HOSTILE_LABEL = '<script>alert("pwned")</script>'


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'arena.db'}"
    return str(request.getfixturevalue("postgres_url"))


def _finished(matches: dict[str, object]) -> list[dict[str, object]]:
    return [match for match in matches["matches"] if match["status"] == "finished"]  # type: ignore[index, union-attr]


def test_upload_ladder_restart_and_read_again(database_url: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    alice = add_author(database_url, "alice", data)
    bob = add_author(database_url, "bob", data)
    assert alice.startswith("dpa_") and bob.startswith("dpa_") and alice != bob
    bots = tmp_path / "bots"
    calla = bot_folder(bots, "calla", CALLER, "Caller", version=HOSTILE_LABEL)
    folda = bot_folder(bots, "folda", FOLDER, "Folder")
    server = Server(
        database_url,
        data,
        tmp_path / "server.log",
        "--ladder-deals",
        "8",
        "--check-states",
        "20",
        "--resamples",
        "200",
    )
    server.start()
    try:
        # Alice submits from the command line: it waits for the check and says so last.
        done = cli("submit", str(calla), "--server", server.url, "--token", alice)
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.strip().splitlines()[-1] == "status: accepted"
        # Bob posts the archive himself.
        answer = httpx.post(
            f"{server.url}/api/bots",
            content=zip_folder(folda),
            headers={"Authorization": f"Bearer {bob}", "Content-Type": "application/zip"},
            timeout=30,
        )
        assert answer.status_code == 202, answer.text
        folda_id = answer.json()["id"]
        checked = server.wait_for(f"/api/bots/{folda_id}", lambda bot: bot["status"] != "checking")
        assert checked["status"] == "accepted", checked
        assert checked["ref"] == "folda@1" and checked["author"] == "bob"
        assert checked["report"]["passed"] is True
        assert str(data) not in json.dumps(checked["report"])  # no server path in a report

        matches = server.wait_for("/api/matches", lambda found: len(_finished(found)) >= 1)
        first = _finished(matches)[-1]
        board = server.get("/api/leaderboard").json()
        lines = {line["name"]: line for line in board["bots"]}
        assert set(lines) == {"calla", "folda"}
        assert lines["calla"]["author"] == "alice" and lines["folda"]["author"] == "bob"
        assert lines["calla"]["version"] == HOSTILE_LABEL
        for line in lines.values():
            assert line["deals"] >= 8 and line["ci95"] is not None and line["rating"] is not None
        # Heads-up duplicate: one bot's gain is the other's loss, to the thousandth.
        assert lines["calla"]["mbb_per_deal"] == pytest.approx(
            -lines["folda"]["mbb_per_deal"], abs=0.01
        )
        # The scores are the duplicate block scores of the matches the standings cover,
        # computed here again from the hands the API publishes.
        covered = sorted(match["id"] for match in _finished(server.get("/api/matches").json()))
        covered = covered[: board["matches"]]
        blocks: dict[str, list[float]] = {"calla@1": [], "folda@1": []}
        for number in covered:
            played = server.get(f"/api/matches/{number}").json()
            tables = [TableSessionResult.from_json(table) for table in played["tables"]]
            names = [tables[0].players[seat] for seat in range(2)]
            for index, scores in enumerate(block_scores(tables, played["seatings"], 20)):
                blocks[names[index]] += [float(score) for score in scores]
        for name, scores in blocks.items():
            line = lines[name.split("@")[0]]
            assert line["deals"] == len(scores)
            assert line["mbb_per_deal"] == pytest.approx(sum(scores) / len(scores), abs=0.002)

        match_id = first["id"]
        detail = server.get(f"/api/matches/{match_id}").json()
        assert detail["key"] is not None and verify_match(detail) == []
        assert len(detail["tables"]) == 2 and all(len(t["deals"]) == 8 for t in detail["tables"])
        page = server.get(f"/matches/{match_id}")
        assert page.status_code == 200
        assert detail["commitment"] in page.text and detail["key"] in page.text
        deals = json.loads(re.search(r'id="hands">(.*?)</script>', page.text, re.DOTALL).group(1))  # type: ignore[union-attr]
        assert len(deals) == 8 and all(len(deal["tables"]) == 2 for deal in deals)
        assert all(hand["frames"] for deal in deals for hand in deal["tables"])
        browser = find_browser()
        if browser is not None:  # the match page as a person sees it: no error, it steps
            seen = open_page(
                browser,
                f"{server.url}/matches/{match_id}",
                {
                    "tables": "document.querySelectorAll('.replay-table').length",
                    "seats": "document.querySelectorAll('.replay-seats li').length",
                    "opened": "document.querySelector('[data-role=step]').textContent",
                    "step": "(() => { document.querySelector('[data-go=start]').click();"
                    " document.querySelector('[data-go=step]').click();"
                    " return document.querySelector('[data-role=step]').textContent; })()",
                },
                width=1000,
                height=900,
            )
            (tmp_path / "match.png").write_bytes(seen.screenshot)
            assert seen.errors == [] and seen.values["tables"] == 2
            assert seen.values["seats"] == 4  # two tables side by side, two seats each
            assert "the end: every table's result" in seen.values["opened"]
            assert seen.values["step"].startswith("step 1 of")
        front = server.get("/")
        assert "<script>alert(" not in front.text and "&lt;script&gt;alert(" in front.text

        # kill -9 while a match is being played. A match is short: one seen playing may
        # finish before the kill lands (it is then played once); the next one is tried.
        for _ in range(5):
            playing = server.wait_for(
                "/api/matches?limit=1",
                lambda found: found["matches"] and found["matches"][0]["status"] == "playing",
                step=0.02,
            )["matches"][0]
            server.kill()
            server.start()
            # Everything is still there, the match cut short is played again with its key.
            replayed = server.wait_for(
                f"/api/matches/{playing['id']}", lambda match: match["status"] == "finished"
            )
            assert replayed["commitment"] == playing["commitment"]
            assert verify_match(replayed) == []
            # A match seen playing may itself be one an earlier stop cut short (its
            # attempts already counted): this stop cut it if it was played once more.
            if replayed["attempts"] == playing["attempts"] + 1:
                break
            assert replayed["attempts"] == playing["attempts"]  # finished before the kill
        else:
            pytest.fail("no match was cut short by five kills: each finished before it")
        again = server.get(f"/api/matches/{match_id}").json()
        assert again == detail
        board_again = server.get("/api/leaderboard").json()
        assert {line["name"] for line in board_again["bots"]} == {"calla", "folda"}
        assert server.get(f"/matches/{match_id}").text.count(detail["key"]) >= 1
        # The tokens survived too: bob may not withdraw alice's bot, alice may.
        calla_id = lines["calla"]["id"]
        refused = httpx.delete(
            f"{server.url}/api/bots/{calla_id}", headers={"Authorization": f"Bearer {bob}"}
        )
        assert refused.status_code == 403
        withdrawn = httpx.delete(
            f"{server.url}/api/bots/{calla_id}", headers={"Authorization": f"Bearer {alice}"}
        )
        assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"
    finally:
        server.stop()
