"""A whole competition over real HTTP: a three-handed ladder (three bots at three mirrored
tables, seats rotated) with house bots and two authors' bots, which plays, ranks and
replays; each match's hand histories for everyone and each bot's log for its author
alone; the authors' pages; and an organiser who lists, pauses, disables and withdraws,
from the command line and the admin page."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from dp_arena.engine.phh import load_histories, replay_hand
from dp_arena.match import seatings
from dp_arena.server.matches import verify_match

from .helpers import FOLDER, Server, add_author, bot_folder, cli, zip_folder

TALKER = """import sys

from dp_arena.engine import Action, ActionKind


class Talker:
    def act(self, observation):
        print(f"deal {observation.context.deal_number}: my turn", file=sys.stderr)
        if observation.can(ActionKind.CALL):
            return Action.call()
        return Action.check()
"""


@dataclass
class Arena:
    server: Server
    db: str
    data: Path
    tokens: dict[str, str]

    def database(self) -> list[str]:
        return ["--db", self.db, "--data", str(self.data)]


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


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    root = tmp_path_factory.mktemp("competition")
    db = f"sqlite:///{root / 'arena.db'}"
    data = root / "data"
    tokens = {name: add_author(db, name, data) for name in ("alice", "bob")}
    made = cli("server", "organiser-token", "olga", "--db", db, "--data", str(data))
    assert made.returncode == 0, made.stderr
    tokens["olga"] = made.stdout.strip().splitlines()[-1]
    server = Server(
        db,
        data,
        root / "server.log",
        "--table-size",
        "3",
        "--house-bots",
        "tag,calling-station",
        "--ladder-deals",
        "6",
        "--check-states",
        "20",
        "--resamples",
        "100",
    )
    server.start()
    try:
        bots = root / "bots"
        _upload(server, tokens["alice"], bot_folder(bots, "talker", TALKER, "Talker"))
        _upload(server, tokens["bob"], bot_folder(bots, "folda", FOLDER, "Folder"))
        yield Arena(server, db, data, tokens)
    finally:
        server.stop()


def _finished_with(arena: Arena, *names: str) -> dict[str, Any]:
    """A finished match seating every bot named."""

    def found(matches: dict[str, Any]) -> bool:
        return any(_seats(match, names) for match in matches["matches"])

    matches = arena.server.wait_for("/api/matches?limit=200", found, timeout=240)
    match = next(match for match in matches["matches"] if _seats(match, names))
    detail: dict[str, Any] = arena.server.get(f"/api/matches/{match['id']}").json()
    return detail


def _seats(match: dict[str, Any], names: tuple[str, ...]) -> bool:
    return match["status"] == "finished" and set(names) <= {bot["name"] for bot in match["bots"]}


def test_a_three_handed_ladder_with_house_bots_plays_ranks_and_replays(arena: Arena) -> None:
    match = _finished_with(arena, "talker", "folda")
    assert len(match["bots"]) == 3 and match["players"] == 3
    assert len(match["tables"]) == 3 and match["table_deals"] == 18
    assert match["seatings"] == [list(seating) for seating in seatings(3)]
    assert sum(bot["mbb_per_deal"] for bot in match["bots"]) == pytest.approx(0, abs=0.01)
    assert sum(bot["net_chips"] for bot in match["bots"]) == 0
    assert verify_match(match) == []
    house = {bot["name"]: bot["house"] for bot in match["bots"]}
    assert house["talker"] is False and house["folda"] is False
    # Ranked: every bot of the ladder, the house bots marked.
    board = arena.server.wait_for(
        "/api/leaderboard", lambda board: all(line["rank"] for line in board["bots"])
    )
    assert board["table_size"] == 3 and board["deals_per_match"] == 6
    lines = {line["name"]: line for line in board["bots"]}
    assert set(lines) == {"tag", "calling-station", "talker", "folda"}
    assert [lines[name]["house"] for name in ("tag", "calling-station", "talker", "folda")] == [
        True,
        True,
        False,
        False,
    ]
    assert all(line["rating"] is not None for line in lines.values())
    front = arena.server.get("/").text
    assert front.count('class="house"') >= 2 and 'href="/authors/alice"' in front
    # Replayed by its bots: the two authors' from the registry, the house bot its built-in.
    done = cli("server", "verify-match", str(match["id"]), "--replay", "--quiet", *arena.database())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 6 deals at its 3 tables (18 table-deals)" in done.stdout
    assert "every decision was answered as recorded" in done.stdout
    page = arena.server.get(f"/matches/{match['id']}").text
    assert "6 deals at 3 mirrored tables, seats rotated (18 table-deals)" in page
    # Times to the second, in the API and on the pages.
    for stamp in (match["created"], match["started"], match["finished"]):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp), stamp
    assert re.search(r"\d\d:\d\d:\d\d UTC", page) and not re.search(r":\d\d\.\d+", page)
    # A check report in words, not Python's.
    talker = next(bot for bot in match["bots"] if bot["name"] == "talker")
    report = arena.server.get(f"/submissions/{talker['id']}").text
    assert "<dd>yes</dd>" in report and "True" not in report and "False" not in report


def test_hand_histories_for_everyone_and_logs_for_their_author(arena: Arena) -> None:
    match = _finished_with(arena, "talker")
    number = match["id"]
    hands = arena.server.get(f"/api/matches/{number}/hands")
    assert hands.status_code == 200 and 'filename="match-' in hands.headers["content-disposition"]
    played = load_histories(hands.text, file="match.phhs")
    assert len(played) == 6 * 3  # every deal at every table, deal by deal
    nets = {}
    for hand in played:  # in PHH's player order: _seats gives each one's seat
        payoffs = replay_hand(hand).state.payoffs
        assert payoffs is not None
        by_seat = [0] * 3
        for player, seat in enumerate(hand.fields["_seats"]):  # type: ignore[arg-type]
            by_seat[seat] = payoffs[player]
        nets[hand.fields["_table"], hand.fields["_deal"]] = by_seat
    for table in match["tables"]:
        for deal in table["deals"]:
            assert nets[table["table"], deal["deal"]] == deal["nets"]
    one = arena.server.get(f"/api/matches/{number}/hands?table=2")
    assert one.status_code == 200 and one.text.count("\nvariant = ") == 6
    assert arena.server.get(f"/api/matches/{number}/hands?table=4").status_code == 404
    assert arena.server.get(f"/api/matches/{number}/hands?table=0").status_code == 422
    page = arena.server.get(f"/matches/{number}").text
    assert f'href="/api/matches/{number}/hands"' in page
    # The log: its author's token only.
    path = f"{arena.server.url}/api/matches/{number}/logs/talker"

    def log(token: str | None) -> httpx.Response:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        return httpx.get(path, headers=headers, timeout=30)

    assert log(None).status_code == 401
    assert log(arena.tokens["bob"]).status_code == 403
    mine = log(arena.tokens["alice"])
    assert mine.status_code == 200
    assert [f"== talker@1, table {table} ==" in mine.text for table in (1, 2, 3)] == [True] * 3
    assert "my turn" in mine.text
    house = next(bot["name"] for bot in match["bots"] if bot["house"])
    answer = httpx.get(
        f"{arena.server.url}/api/matches/{number}/logs/{house}",
        headers={"Authorization": f"Bearer {arena.tokens['alice']}"},
        timeout=30,
    )
    assert answer.status_code == 403
    # Linked from the author's own match pages (signed in), not from anyone else's.
    assert "/logs/talker" not in page
    with httpx.Client(base_url=arena.server.url, timeout=30) as browser:
        form = browser.get("/login").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', form).group(1)  # type: ignore[union-attr]
        browser.post("/login", data={"token": arena.tokens["alice"], "csrf": csrf})
        assert f'href="/api/matches/{number}/logs/talker"' in browser.get(f"/matches/{number}").text
        assert browser.get(f"/api/matches/{number}/logs/talker").status_code == 200


def test_authors_have_pages_and_names_are_links(arena: Arena) -> None:
    _finished_with(arena, "folda")
    data = arena.server.get("/api/authors/bob").json()
    assert data["name"] == "bob" and [bot["name"] for bot in data["bots"]] == ["folda"]
    assert data["bots"][0]["in_ladder"] == "folda@1" and data["matches"]
    assert all("folda" in {bot["name"] for bot in match["bots"]} for match in data["matches"])
    page = arena.server.get("/authors/bob")
    assert page.status_code == 200 and 'href="/bots/folda"' in page.text
    house = arena.server.get("/api/authors/house").json()
    assert house["house"] is True
    assert sorted(bot["name"] for bot in house["bots"]) == ["calling-station", "tag"]
    assert arena.server.get("/authors/nobody").status_code == 404
    assert 'href="/authors/bob"' in arena.server.get("/bots/folda").text


def _latest(arena: Arena) -> dict[str, Any]:
    found: dict[str, Any] = arena.server.get("/api/matches?limit=1").json()["matches"][0]
    return found


def test_an_organiser_lists_pauses_disables_and_withdraws(arena: Arena) -> None:
    listed = cli("server", "authors", *arena.database())
    assert listed.returncode == 0
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()[1:-1]}
    assert set(rows) == {"alice", "bob", "house"} and rows["house"].endswith("house")
    bots = cli("server", "bots", *arena.database())
    assert "talker" in bots.stdout and "tag (house)" in bots.stdout
    assert "4 bot(s), 4 in the ladder" in bots.stdout
    with httpx.Client(base_url=arena.server.url, timeout=30) as browser:
        assert browser.get("/admin").status_code == 303  # signed out: to the sign-in form
        form = browser.get("/login").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', form).group(1)  # type: ignore[union-attr]
        signed_in = browser.post("/login", data={"token": arena.tokens["olga"], "csrf": csrf})
        assert signed_in.status_code == 303 and signed_in.headers["location"] == "/admin"
        admin = browser.get("/admin")
        assert admin.status_code == 200 and "Pause the ladder" in admin.text
        session = re.search(r'name="csrf" value="([^"]+)"', admin.text).group(1)  # type: ignore[union-attr]
        assert browser.post("/admin/ladder/pause", data={}).status_code == 403
        paused = browser.post("/admin/ladder/pause", data={"csrf": session})
        assert paused.status_code == 303
        # Paused: the match playing ends, no other starts.
        arena.server.wait_for(
            "/api/matches?limit=1", lambda found: found["matches"][0]["status"] != "playing"
        )
        last = _latest(arena)["id"]
        assert arena.server.get("/api/leaderboard").json()["paused"] is True
        time.sleep(1.5)
        assert _latest(arena)["id"] == last
        # Bob disabled from the command line: his token stops working, folda leaves.
        done = cli("server", "disable-author", "bob", *arena.database())
        assert done.returncode == 0 and "nothing was deleted" in done.stdout
        refused = httpx.post(
            f"{arena.server.url}/api/bots",
            content=b"PK",
            headers={"Authorization": f"Bearer {arena.tokens['bob']}"},
            timeout=30,
        )
        assert refused.status_code == 401
        names = {line["name"] for line in arena.server.get("/api/leaderboard").json()["bots"]}
        assert "folda" not in names and arena.server.get("/bots/folda").status_code == 200
        # Resumed from the command line: three bots left, none of them folda.
        assert cli("server", "resume-ladder", *arena.database()).returncode == 0
        arena.server.wait_for(
            "/api/matches?limit=1", lambda found: found["matches"][0]["id"] > last + 1
        )
        # Talker withdrawn from the admin page: two bots are too few for a table of three.
        withdrawn = browser.post("/admin/bots/talker/withdraw", data={"csrf": session})
        assert withdrawn.status_code == 303
        assert "talker withdrawn" in browser.get(withdrawn.headers["location"]).text
        arena.server.wait_for(
            "/api/matches?limit=1", lambda found: found["matches"][0]["status"] != "playing"
        )
        waiting = _latest(arena)["id"]
        assert "waits for 3 bots" in arena.server.get("/").text
        # Bob enabled again by the admin API, with the organiser's token.
        olga = {"Authorization": f"Bearer {arena.tokens['olga']}"}
        enabled = httpx.post(
            f"{arena.server.url}/admin/authors/bob/enable", headers=olga, timeout=30
        )
        assert enabled.status_code == 200 and enabled.json()["ok"] is True
        overview = httpx.get(f"{arena.server.url}/api/admin", headers=olga, timeout=30).json()
        assert [row["action"] for row in overview["log"]][:5] == [
            "enable-author",
            "withdraw-bot",
            "resume-ladder",
            "disable-author",
            "pause-ladder",
        ]
        assert httpx.get(f"{arena.server.url}/api/admin", timeout=30).status_code == 401
        assert json.dumps(overview).count('"disabled": null') >= 3  # nobody disabled now
        # Folda is back, and plays; talker never again.
        arena.server.wait_for(
            "/api/matches?limit=1", lambda found: found["matches"][0]["id"] > waiting
        )
        after = arena.server.get("/api/matches?limit=100").json()["matches"]
        seated = {match["id"]: {bot["name"] for bot in match["bots"]} for match in after}
        assert all("folda" not in seated[number] for number in seated if last < number <= waiting)
        assert all("talker" not in seated[number] for number in seated if number > waiting)
        assert any("folda" in seated[number] for number in seated if number > waiting)
