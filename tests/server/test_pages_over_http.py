"""Real server pages over HTTP, with a hostile bot among the accepted ones: its hello
names it with markup and, at the ladder's tables (never in the conformance check), it
raises errors whose message is markup too. Its check report and its ladder match's
faults reach the pages escaped, as text, in the browser too. Then tournaments over the
accepted bots: one dealt from a secret key, published and served by the server, and
one refused in the format's own words for want of entrants."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from dp_arena.text import printable
from tests.ratings.chromium import find_browser, open_page

from .helpers import CALLER, CLI, Server, add_author, bot_folder, cli, zip_folder

HOSTILE = '<img src=x onerror=alert(1)></script><script>alert("pwned")</script>'

MALLORY = f'''from dp_arena.engine import Action, ActionKind

HOSTILE = {HOSTILE!r}


class Mallory:
    """Calls; at any table but the conformance check's, one decision in four raises."""

    def act(self, observation):
        context = observation.context
        if context.event != "check-agent" and context.deal_number % 4 == 1:
            raise ValueError(HOSTILE)
        if observation.can(ActionKind.CALL):
            return Action.call()
        return Action.check()


Mallory.__name__ = HOSTILE  # what the bot's hello calls it
'''

# Its version label (bot.toml's ``version``) breaks out of an attribute.
LABEL = '"><img src=x onerror=alert(2)>'

# Markup that a page showing the text as text never holds: the payload's own tags.
RAW = ("<img src=x", '<script>alert("pwned")')
ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"


@dataclass
class Arena:
    server: Server
    db: str
    data: Path
    root: Path
    tokens: dict[str, str]
    ids: dict[str, int]


def _upload(server: Server, token: str, folder: Path) -> int:
    answer = httpx.post(
        f"{server.url}/api/bots",
        content=zip_folder(folder),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/zip"},
        timeout=30,
    )
    assert answer.status_code == 202, answer.text
    submission: int = answer.json()["id"]
    checked = server.wait_for(f"/api/bots/{submission}", lambda bot: bot["status"] != "checking")
    assert checked["status"] == "accepted", checked
    return submission


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    root = tmp_path_factory.mktemp("pages")
    db = f"sqlite:///{root / 'arena.db'}"
    data = root / "data"
    tokens = {name: add_author(db, name, data) for name in ("alice", "mallory")}
    server = Server(
        db,
        data,
        root / "server.log",
        "--ladder-deals",
        "8",
        "--check-states",
        "20",
        "--resamples",
        "200",
        "--ladder-pause",
        "2",
    )
    server.start()
    try:
        bots = root / "bots"
        ids = {
            "calla": _upload(server, tokens["alice"], bot_folder(bots, "calla", CALLER, "Caller")),
            "mallory": _upload(
                server,
                tokens["mallory"],
                bot_folder(bots, "mallory", MALLORY, "Mallory", version=LABEL),
            ),
        }
        yield Arena(server, db, data, root, tokens, ids)
    finally:
        server.stop()


def _no_markup(page: str) -> None:
    for raw in RAW:
        assert raw not in page


def test_a_hostile_hello_name_is_text_on_the_submission_page(arena: Arena) -> None:
    submission = arena.ids["mallory"]
    report = arena.server.get(f"/api/bots/{submission}").json()["report"]
    assert report["bot_name"] == printable(HOSTILE, 100) == HOSTILE
    page = arena.server.get(f"/submissions/{submission}")
    assert page.status_code == 200
    _no_markup(page.text)
    assert f"the bot calls itself “{ESCAPED}" in page.text
    browser = find_browser()
    if browser is None:
        pytest.skip("no chromium here: the page was checked as text only")
    seen = open_page(
        browser,
        f"{arena.server.url}/submissions/{submission}",
        {
            "shown": "document.querySelector('dl.report').textContent",
            "images": "document.images.length",
            "scripts": "document.scripts.length",
        },
        width=1000,
        height=700,
    )
    (arena.root / "submission.png").write_bytes(seen.screenshot)
    assert HOSTILE in seen.values["shown"]
    assert seen.values["images"] == 0 and seen.values["scripts"] == 0
    assert seen.dialogs == [] and seen.errors == []


def _match_with_faults(arena: Arena) -> dict[str, object]:
    def found(matches: dict[str, list[dict[str, object]]]) -> bool:
        return any(match["status"] == "finished" for match in matches["matches"])

    matches = arena.server.wait_for("/api/matches", found, timeout=180)
    first = next(match for match in matches["matches"] if match["status"] == "finished")
    detail: dict[str, object] = arena.server.get(f"/api/matches/{first['id']}").json()
    return detail


def test_hostile_fault_details_are_text_on_the_match_page(arena: Arena) -> None:
    match = _match_with_faults(arena)
    faults = match["faults"]
    assert isinstance(faults, list) and faults, "the hostile bot faulted at the ladder's tables"
    assert all(fault["agent"] == "mallory@1" and HOSTILE in fault["detail"] for fault in faults)
    page = arena.server.get(f"/matches/{match['id']}")
    assert page.status_code == 200
    # The hands' JSON is embedded too: everything outside it holds no markup of a bot's.
    outside = re.sub(r'<script type="application/json" id="hands">.*?</script>', "", page.text)
    _no_markup(outside)
    assert f"ValueError: {ESCAPED}" in page.text
    browser = find_browser()
    if browser is None:
        pytest.skip("no chromium here: the page was checked as text only")
    seen = open_page(
        browser,
        f"{arena.server.url}/matches/{match['id']}",
        {
            "faults": "[...document.querySelectorAll('main ul li')].map(li => li.textContent)",
            "images": "document.images.length",
            "scripts": "[...document.scripts].map(script => script.src || script.type)",
            # A fault links to its hand: the viewer opens it.
            "clicked": "document.querySelector('ul.faults a').click() || location.hash",
            "opened": "document.querySelector('[data-role=title]').textContent",
        },
        width=1000,
        height=900,
    )
    (arena.root / "match.png").write_bytes(seen.screenshot)
    assert any(HOSTILE in text for text in seen.values["faults"])
    first = faults[0]
    assert seen.values["clicked"].startswith("#hand-")
    # Numbered from 1 in the API as on the page, beside the index that finds it in tables.
    assert first["deal"] == first["deal_index"] + 1 and first["table"] == first["table_index"] + 1
    assert seen.values["opened"].startswith(f"deal {first['deal']} — 2 tables")
    assert seen.values["images"] == 0
    # Only the page's own scripts: the hands' data and the viewer.
    assert seen.values["scripts"] == ["application/json", f"{arena.server.url}/static/replay.js"]
    assert seen.dialogs == [] and seen.errors == []


CUP = """[event]
name = "Server cup"
format = "regular"

[table]
round_robin_deals = 4

[field]
count = 2
from = ["random", "calling-station"]
"""


def _stored_while_running(arena: Arena) -> list[tuple[int, str, str | None]]:
    """(id, status, commitment) of every tournament, read from the database itself."""
    path = arena.db.removeprefix("sqlite:///")
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
        return list(connection.execute("SELECT id, status, commitment FROM tournaments"))


def test_a_tournament_over_the_accepted_bots_is_dealt_from_a_secret_key(arena: Arena) -> None:
    config = arena.root / "cup.toml"
    config.write_text(CUP, encoding="utf-8")
    command = [*CLI, "server", "tournament", str(config), "--db", arena.db]
    playing = subprocess.Popen(
        [*command, "--data", str(arena.data)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # While it plays, its row already holds the commitment, and no result is written.
    seen_running: list[tuple[int, str, str | None]] = []
    while playing.poll() is None and not seen_running:
        seen_running = [row for row in _stored_while_running(arena) if row[1] == "running"]
        time.sleep(0.02)
    stdout, stderr = playing.communicate(timeout=300)
    assert playing.returncode == 0, stdout + stderr
    announced = re.search(r"secret deck key, commitment ([0-9a-f]{64})", stdout)
    assert announced is not None, stdout
    commitment = announced.group(1)
    assert seen_running, "the tournament was never seen running"
    number, _, stored = seen_running[0]
    assert stored == commitment
    # Announced before it was played, then its standings and figures, as dp-arena run
    # prints them, then published on the server.
    assert stdout.index(commitment) < stdout.index("final standings:")
    assert stdout.index("final standings:") < stdout.index("published: /tournaments/")
    assert re.search(r"the event: \d+ entrants, \d+ deals \([\d,]+ table-deals\)", stdout)
    assert "table-deals played in" in stdout and "results digest " in stdout
    listing = arena.server.get("/tournaments")
    assert listing.status_code == 200 and commitment in listing.text
    assert re.findall(r'href="/tournaments/(\d+)/"', listing.text)[0] == str(number)
    page = arena.server.get(f"/tournaments/{number}/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "Server cup" in page.text and "dealt from a secret key" in page.text
    published = arena.server.get(f"/tournaments/{number}/leaderboard.json").json()
    event = published["events"][0]
    assert event["seed"] is None and event["predictable"] is False
    assert event["commitment"] == commitment
    # The server's bots played as their current versions, beside the config's field.
    codes = sorted(entrant["code"] for entrant in event["entrants"])
    assert codes == sorted(
        ["calla@1", "mallory@1", "random (built-in)", "calling-station (built-in)"]
    )
    assert {row["name"] for row in published["ranking"]} >= {"calla@1", "mallory@1"}
    # The revealed key is the one committed to.
    results = json.loads(
        (arena.data / "tournaments" / str(number) / "run" / "results.json").read_text()
    )
    assert hashlib.sha256(bytes.fromhex(results["event"]["key"])).hexdigest() == commitment
    run_dir = arena.data / "tournaments" / str(number) / "run"
    verified = cli("verify", str(run_dir), "--commitment", commitment)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # The hostile bot's faults are on the published page, as text.
    assert any(HOSTILE in fault["detail"] for fault in event["faults"])
    _no_markup(page.text)
    assert str(arena.data) not in page.text
    # Its hands are in the replay viewer, served beside it; each fault links to its hand.
    pages = event["hands"]["pages"]
    assert pages and all(item["file"] for item in pages)
    assert f'<a href="{pages[0]["file"]}">' in page.text
    linked = next(fault["hand"] for fault in event["faults"] if fault["hand"])
    assert f'href="{linked}"' in page.text
    viewer = arena.server.get(f"/tournaments/{number}/{linked.split('#')[0]}")
    assert viewer.status_code == 200 and viewer.headers["content-type"].startswith("text/html")
    assert 'id="hands"' in viewer.text
    browser = find_browser()
    if browser is not None:  # the fault's link, as served, opens its hand
        seen = open_page(
            browser,
            f"{arena.server.url}/tournaments/{number}/{linked}",
            {"title": "document.querySelector('[data-role=title]').textContent"},
            width=1000,
            height=800,
        )
        (arena.root / "tournament-hand.png").write_bytes(seen.screenshot)
        fault = next(fault for fault in event["faults"] if fault["hand"] == linked)
        assert seen.errors == [] and seen.dialogs == []
        # The fault's deal at every table of its section, side by side.
        assert seen.values["title"].startswith(
            f"deal {fault['deal'] + 1}, session {fault['session']}, section {fault['section']}"
            " — 2 tables"
        )
    # Nothing outside the published folder is served from it.
    for outside in ("..%2F..%2F..%2Farena.db", "hands%2F..%2F..%2Frun%2Fkey", "../run/key"):
        assert arena.server.get(f"/tournaments/{number}/{outside}").status_code == 404


def test_a_tournament_with_too_few_entrants_is_refused_in_the_formats_words(
    arena: Arena,
) -> None:
    config = arena.root / "small.toml"
    config.write_text('[event]\nname = "Too small"\nformat = "regular"\n', encoding="utf-8")
    before = arena.server.get("/tournaments").text.count('<tr><td class="name">')
    done = cli("server", "tournament", str(config), "--db", arena.db, "--data", str(arena.data))
    assert done.returncode == 2
    assert (
        "a regular tournament needs at least 4 entrants, not 2: the server has 2 accepted bots"
        in done.stderr
    )
    assert "Traceback" not in done.stderr and "KeyError" not in done.stderr
    assert arena.server.get("/tournaments").text.count('<tr><td class="name">') == before


def test_every_page_shows_the_hostile_strings_as_text(arena: Arena) -> None:
    finished = _match_with_faults(arena)  # a finished match, with the hostile bot's faults
    matches = arena.server.get("/api/matches").json()["matches"]
    paths = [
        "/",
        "/matches",
        *(f"/matches/{match['id']}" for match in matches),
        "/bots/mallory",
        "/bots/calla",
        *(f"/submissions/{number}" for number in arena.ids.values()),
        "/tournaments",
        "/login",
        "/no-such-page",
    ]
    api = arena.server.get("/api/leaderboard").json()
    assert {bot["version"] for bot in api["bots"]} >= {LABEL}  # the data keeps it as it is
    with httpx.Client(base_url=arena.server.url, timeout=30) as browser:
        form = browser.get("/login")
        csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)  # type: ignore[union-attr]
        signed_in = browser.post("/login", data={"token": arena.tokens["mallory"], "csrf": csrf})
        assert signed_in.status_code == 303
        pages = {path: browser.get(path) for path in [*paths, "/account"]}
    for path, answer in pages.items():
        assert answer.status_code in (200, 404), path
        text = re.sub(r'<script type="application/json" id="hands">.*?</script>', "", answer.text)
        for raw in (*RAW, LABEL):
            assert raw not in text, (path, raw)
    # And the pages that show the hostile strings show them, as text: the fault's message
    # on its match's page, the version label on the ladder and the bot's page, both on
    # its submission's report. (How many matches there are depends on how long the
    # ladder has played: each is checked above, these are the ones that must be there.)
    label = "&#34;&gt;&lt;img src=x onerror=alert(2)&gt;"
    expected = {
        "/": [label],
        "/bots/mallory": [label],
        f"/matches/{finished['id']}": [ESCAPED],
        f"/submissions/{arena.ids['mallory']}": [ESCAPED, label],
    }
    for path, strings in expected.items():
        for string in strings:
            assert string in pages[path].text, (path, string)
    assert pages["/account"].status_code == 200 and "mallory" in pages["/account"].text
    browser_path = find_browser()
    if browser_path is None:
        pytest.skip("no chromium here: the pages were checked as text only")
    for path in ("/", "/bots/mallory"):
        seen = open_page(
            browser_path,
            arena.server.url + path,
            {"images": "document.images.length", "text": "document.body.textContent"},
            width=1100,
            height=800,
        )
        (arena.root / f"page{path.replace('/', '-')}.png").write_bytes(seen.screenshot)
        assert seen.values["images"] == 0 and LABEL in seen.values["text"]
        assert seen.dialogs == [] and seen.errors == []


def test_the_same_archive_again_is_not_a_new_version(arena: Arena) -> None:
    again = bot_folder(arena.root / "again", "calla", CALLER, "Caller")
    answer = httpx.post(
        f"{arena.server.url}/api/bots",
        content=zip_folder(again),
        headers={
            "Authorization": f"Bearer {arena.tokens['alice']}",
            "Content-Type": "application/zip",
        },
        timeout=30,
    )
    assert answer.status_code == 202
    checked = arena.server.wait_for(
        f"/api/bots/{answer.json()['id']}", lambda bot: bot["status"] != "checking"
    )
    assert checked["status"] == "rejected" and checked["reason"] == "unchanged"
    assert checked["message"] == "the same content as calla@1, accepted before"
    board = arena.server.get("/api/bots").json()["bots"]
    assert [bot["ref"] for bot in board if bot["name"] == "calla"] == ["calla@1"]
    page = arena.server.get("/bots/calla")
    assert "unchanged" in page.text and "calla@2" not in page.text


def _stored_units(run_dir: Path) -> int:
    """Table-sessions stored in the run's checkpoint store so far (0 before it exists)."""
    from dp_arena.errors import RunError
    from dp_arena.rundir.store import RunStore

    try:
        with RunStore.read(run_dir) as store:
            return store.count()
    except (RunError, sqlite3.Error):  # not made yet, or being made
        return 0


def test_a_tournament_cut_short_is_resumed_with_its_key(arena: Arena) -> None:
    config = arena.root / "long.toml"
    config.write_text(CUP.replace("round_robin_deals = 4", "round_robin_deals = 150"), "utf-8")
    playing = subprocess.Popen(
        [*CLI, "server", "tournament", str(config), "--db", arena.db, "--data", str(arena.data)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    assert playing.stdout is not None
    announced = re.search(
        r"tournament (\d+) .*commitment ([0-9a-f]{64})", playing.stdout.readline()
    )
    assert announced is not None
    number, commitment = int(announced.group(1)), announced.group(2)
    run_dir = arena.data / "tournaments" / str(number) / "run"
    # kill -9 as soon as its first table-session is stored (most of its play still to come).
    deadline = time.monotonic() + 120
    while _stored_units(run_dir) == 0:
        assert time.monotonic() < deadline and playing.poll() is None
        time.sleep(0.02)
    os.killpg(playing.pid, signal.SIGKILL)
    playing.wait(30)
    playing.stdout.close()
    assert not (run_dir / "results.json").exists(), "it finished before it could be cut short"
    assert (number, "running", commitment) in _stored_while_running(arena)
    done = cli(
        "server", "tournament", "--resume", str(number), "--db", arena.db, "--data", str(arena.data)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"tournament {number} (Server cup) published" in done.stdout
    assert (number, "published", commitment) in _stored_while_running(arena)
    verified = cli("verify", str(run_dir), "--commitment", commitment)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    page = arena.server.get(f"/tournaments/{number}/leaderboard.json").json()
    assert page["events"][0]["commitment"] == commitment
    again = cli(
        "server", "tournament", "--resume", str(number), "--db", arena.db, "--data", str(arena.data)
    )
    assert again.returncode == 2 and "is published already" in again.stderr


CRASHER = f'''import os
import sys

from dp_arena.engine import Action, ActionKind


class Crasher:
    """Passes its check; at any other table it writes markup to stderr and dies."""

    def act(self, observation):
        if observation.context.event != "check-agent":
            sys.stderr.write({HOSTILE!r})
            sys.stderr.flush()
            os._exit(3)
        if observation.can(ActionKind.CALL):
            return Action.call()
        return Action.check()
'''


def test_a_bot_that_dies_at_a_tournament_is_benched_and_said_so(arena: Arena) -> None:
    crasher = _upload(
        arena.server,
        arena.tokens["mallory"],
        bot_folder(arena.root / "crash", "crasher", CRASHER, "Crasher"),
    )
    try:
        config = arena.root / "crash.toml"
        config.write_text(CUP.replace("count = 2", "count = 1"), encoding="utf-8")
        done = cli("server", "tournament", str(config), "--db", arena.db, "--data", str(arena.data))
        assert done.returncode == 0, done.stdout + done.stderr
        number = int(re.search(r"tournament (\d+) ", done.stdout).group(1))  # type: ignore[union-attr]
        published = arena.server.get(f"/tournaments/{number}/leaderboard.json").json()
        [event] = published["events"]
        benched = [row for row in event["benched"] if row["player"] == "crasher"]
        assert benched and all(row["reason"] for row in benched)
        assert "crasher@1" in {row["name"] for row in published["ranking"]}  # still ranked
        page = arena.server.get(f"/tournaments/{number}/")
        assert page.status_code == 200 and "crasher" in page.text
        _no_markup(page.text)
        run_dir = arena.data / "tournaments" / str(number) / "run"
        verified = cli("verify", str(run_dir))
        assert verified.returncode == 0, verified.stdout + verified.stderr
    finally:
        withdrawn = httpx.delete(
            f"{arena.server.url}/api/bots/{crasher}",
            headers={"Authorization": f"Bearer {arena.tokens['mallory']}"},
            timeout=30,
        )
        assert withdrawn.status_code == 200
