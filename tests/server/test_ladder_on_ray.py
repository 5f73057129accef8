"""The ladder on Ray: ``dp-arena serve --executor ray`` starts an embedded Ray of its own
and sends the ladder's tables to it; the matches are the same duplicate matches (their
hands replay to their nets from the revealed key), and when the server stops, nothing
of its Ray is left running."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

import httpx
import pytest

from dp_arena.server.matches import verify_match
from tests.runner.helpers import live_processes_of_a_run

from .helpers import CALLER, FOLDER, Server, add_author, bot_folder, zip_folder

pytest.importorskip("ray")


def _upload(server: Server, token: str, folder: Path) -> None:
    answer = httpx.post(
        f"{server.url}/api/bots",
        content=zip_folder(folder),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/zip"},
        timeout=30,
    )
    assert answer.status_code == 202, answer.text
    checked = server.wait_for(
        f"/api/bots/{answer.json()['id']}", lambda bot: bot["status"] != "checking"
    )
    assert checked["status"] == "accepted", checked


def test_the_ladder_plays_on_an_embedded_ray(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every process the server starts inherits this: what is left of them is found by it.
    mark = secrets.token_hex(8)
    monkeypatch.setenv("DP_ARENA_TEST_RUN", mark)
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    data = tmp_path / "data"
    alice, bob = add_author(db, "alice", data), add_author(db, "bob", data)
    server = Server(
        db,
        data,
        tmp_path / "server.log",
        "--executor",
        "ray",
        "--workers",
        "1",
        "--ladder-deals",
        "6",
        "--check-states",
        "20",
        "--resamples",
        "200",
    )
    server.start()
    try:
        bots = tmp_path / "bots"
        _upload(server, alice, bot_folder(bots, "calla", CALLER, "Caller"))
        _upload(server, bob, bot_folder(bots, "folda", FOLDER, "Folder"))

        def finished(found: dict[str, list[dict[str, object]]]) -> bool:
            return any(match["status"] == "finished" for match in found["matches"])

        matches = server.wait_for("/api/matches", finished, timeout=240, step=0.5)
        first = next(match for match in matches["matches"] if match["status"] == "finished")
        detail = server.get(f"/api/matches/{first['id']}").json()
        assert verify_match(detail) == []
        assert len(detail["tables"]) == 2 and all(len(t["deals"]) == 6 for t in detail["tables"])
        board = server.get("/api/leaderboard").json()
        assert {bot["name"] for bot in board["bots"]} == {"calla", "folda"}
        assert "Ray (embedded" in server.log()
    finally:
        server.stop()
    deadline = time.monotonic() + 60
    left = live_processes_of_a_run("DP_ARENA_TEST_RUN", mark, data)
    while left and time.monotonic() < deadline:
        time.sleep(1)
        left = live_processes_of_a_run("DP_ARENA_TEST_RUN", mark, data)
    assert left == {}, f"left running after the server stopped: {left}"
