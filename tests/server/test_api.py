"""The API and the forms against a real server on loopback (checker on, no ladder):
tokens, limits, hostile archives, names owned by their author, CSRF on every form, and
the headers every answer carries."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .helpers import CALLER, Server, add_author, bot_folder, zip_folder


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str, str, Path]]:
    root = tmp_path_factory.mktemp("api")
    db = f"sqlite:///{root / 'arena.db'}"
    alice = add_author(db, "alice", root / "data")
    bob = add_author(db, "bob", root / "data")
    running = Server(
        db,
        root / "data",
        root / "server.log",
        "--no-ladder",
        "--check-states",
        "20",
        "--max-upload-bytes",
        "200000",
        "--uploads-per-hour",
        "6",
    )
    running.start()
    try:
        yield running, alice, bob, root
    finally:
        running.stop()


def post(
    server: Server, token: str | None, body: bytes, kind: str = "application/zip"
) -> httpx.Response:
    headers = {"Content-Type": kind}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.post(f"{server.url}/api/bots", content=body, headers=headers, timeout=30)


def wait_checked(server: Server, submission: int) -> dict[str, object]:
    return server.wait_for(f"/api/bots/{submission}", lambda bot: bot["status"] != "checking")  # type: ignore[no-any-return]


def test_uploads_need_a_valid_token(
    server: tuple[Server, str, str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    running, _, _, _ = server
    missing = post(running, None, b"PK")
    assert missing.status_code == 401
    assert "send your token" in missing.json()["message"]
    refused = post(running, "dpa_not-a-token", b"PK")
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"].startswith("Bearer")
    assert refused.json()["error"] == "unauthorised"
    # A token was sent: the answer says it is not one the server knows, not "send one".
    assert "knows no such token" in refused.json()["message"]
    assert "invalid_token" in refused.headers["www-authenticate"]
    from dp_arena.cli import main

    folder = bot_folder(tmp_path, "wrong-token", CALLER, "Caller")
    assert main(["submit", str(folder), "--server", running.url, "--token", "dpa_typo"]) == 2
    err = capsys.readouterr().err
    assert "does not accept the token given by --token" in err and "knows no such token" in err


def test_size_and_type_are_refused_before_anything_is_kept(
    server: tuple[Server, str, str, Path],
) -> None:
    running, alice, _, root = server
    too_big = post(running, alice, b"x" * 200_001)
    assert too_big.status_code == 413 and too_big.json()["error"] == "too_large"
    wrong = post(running, alice, b"#!/bin/sh\n", kind="text/x-shellscript")
    assert wrong.status_code == 415
    assert list((root / "data" / "uploads").iterdir()) == []


def test_a_hostile_archive_is_rejected_with_its_reason(
    server: tuple[Server, str, str, Path],
) -> None:
    running, alice, _, _ = server
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.writestr("bot.toml", 'name = "escape"\nversion = "1"\nentry = "bot.py:B"\n')
        bundle.writestr("../../outside.py", "print('out')\n")
    answer = post(running, alice, buffer.getvalue())
    assert answer.status_code == 202
    checked = wait_checked(running, answer.json()["id"])
    assert checked["status"] == "rejected" and checked["reason"] == "unsafe_path"
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("bot.toml", 'name = "bomb"\nversion = "1"\nentry = "bot.py:B"\n')
        bundle.writestr("bot.py", "0" * 5_000_000)
    answer = post(running, alice, bomb.getvalue())
    assert wait_checked(running, answer.json()["id"])["reason"] == "zip_bomb"


def test_a_name_belongs_to_its_first_author(server: tuple[Server, str, str, Path]) -> None:
    running, alice, bob, root = server
    folder = bot_folder(root / "bots-name", "owned", CALLER, "Caller")
    mine = post(running, alice, zip_folder(folder))
    assert wait_checked(running, mine.json()["id"])["status"] == "accepted"
    (folder / "bot.py").write_text(CALLER + "\n# bob's copy\n", encoding="utf-8")
    theirs = post(running, bob, zip_folder(folder))
    checked = wait_checked(running, theirs.json()["id"])
    assert checked["status"] == "rejected" and checked["reason"] == "name_taken"
    again = post(running, alice, zip_folder(folder))
    accepted = wait_checked(running, again.json()["id"])
    assert accepted["status"] == "accepted" and accepted["ref"] == "owned@2"
    board = running.get("/api/bots").json()["bots"]
    assert [bot["ref"] for bot in board if bot["name"] == "owned"] == ["owned@2"]


def test_the_rate_limit_answers_429(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    token = add_author(db, "carol", tmp_path / "data")
    running = Server(
        db, tmp_path / "data", tmp_path / "server.log", "--no-ladder", "--uploads-per-hour", "2"
    )
    running.start()
    try:
        codes = [post(running, token, b"PK\x03\x04 not really").status_code for _ in range(3)]
        assert codes == [202, 202, 429]
        limited = post(running, token, b"PK")
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) > 0
    finally:
        running.stop()


def test_each_client_address_has_its_own_limits(tmp_path: Path) -> None:
    """Behind a proxy (the test is it, from 127.0.0.1), each client the proxy names has
    its own budget: a burst of a quarter of a minute's requests, then 429; writes
    have a smaller one, spent before any token is looked at."""
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    running = Server(
        db,
        tmp_path / "data",
        tmp_path / "server.log",
        "--no-ladder",
        "--behind-proxy",
        "--requests-per-minute",
        "20",
        "--writes-per-minute",
        "5",
    )
    running.start()

    def get(client: str, path: str = "/api/leaderboard") -> httpx.Response:
        return running.get(path, headers={"X-Forwarded-For": client})

    try:
        codes = [get("203.0.113.1").status_code for _ in range(6)]
        assert codes == [200] * 5 + [429]
        limited = get("203.0.113.1")
        assert limited.status_code == 429 and limited.json()["error"] == "rate_limited"
        assert int(limited.headers["retry-after"]) >= 1
        assert limited.headers["x-frame-options"] == "DENY"  # the headers of every answer
        page = get("203.0.113.1", "/")
        assert page.status_code == 429 and page.headers["content-type"].startswith("text/plain")
        # Another client is not held back by the first.
        assert get("203.0.113.2").status_code == 200
        # Writes: refused at the sixth, before the (missing) token is checked.
        posts = [
            httpx.post(
                f"{running.url}/api/bots",
                content=b"PK",
                headers={"X-Forwarded-For": "203.0.113.3", "Content-Type": "application/zip"},
                timeout=30,
            ).status_code
            for _ in range(6)
        ]
        assert posts == [401] * 5 + [429]
    finally:
        running.stop()


def test_headers_on_every_answer(server: tuple[Server, str, str, Path]) -> None:
    running, _, _, _ = server
    for path in ("/", "/api/leaderboard", "/login", "/no-such-page"):
        answer = running.get(path)
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["x-frame-options"] == "DENY"
        assert "script-src 'self'" in answer.headers["content-security-policy"]
        assert "server" not in answer.headers
    assert running.get("/no-such-page").status_code == 404


def _csrf(text: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', text)
    assert found is not None
    return found.group(1)


def test_forms_need_their_csrf_token(server: tuple[Server, str, str, Path]) -> None:
    running, alice, bob, root = server
    with httpx.Client(base_url=running.url, timeout=30) as browser:
        # No form value, or another one than the cookie's: refused.
        assert browser.post("/login", data={"token": alice}).status_code == 403
        form = browser.get("/login")
        assert browser.post("/login", data={"token": alice, "csrf": "forged"}).status_code == 403
        value = _csrf(form.text)
        assert browser.post("/login", data={"token": "dpa_wrong", "csrf": value}).status_code == 401
        signed_in = browser.post("/login", data={"token": alice, "csrf": value})
        assert signed_in.status_code == 303
        cookie = signed_in.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        account = browser.get("/account")
        assert account.status_code == 200 and "alice" in account.text
        session_csrf = _csrf(account.text)
        archive = zip_folder(bot_folder(root / "bots-form", "formbot", CALLER, "Caller"))
        files = {"archive": ("formbot.zip", archive, "application/zip")}
        assert browser.post("/account/upload", files=files, data={"csrf": "x"}).status_code == 403
        uploaded = browser.post("/account/upload", files=files, data={"csrf": session_csrf})
        assert uploaded.status_code == 303
        submission = int(uploaded.headers["location"].rsplit("/", 1)[1])
        assert wait_checked(running, submission)["status"] == "accepted"
        withdraw = f"/submissions/{submission}/withdraw"
        assert browser.post(withdraw, data={}).status_code == 403
        assert browser.post(withdraw, data={"csrf": session_csrf}).status_code == 303
        assert running.get(f"/api/bots/{submission}").json()["status"] == "withdrawn"
    # Another author's session cannot withdraw it, even with its own CSRF token.
    with httpx.Client(base_url=running.url, timeout=30) as other:
        value = _csrf(other.get("/login").text)
        other.post("/login", data={"token": bob, "csrf": value})
        own = _csrf(other.get("/account").text)
        assert other.post(withdraw, data={"csrf": own}).status_code == 403


def _sign_in(server: Server, token: str, headers: dict[str, str], prefix: str) -> httpx.Response:
    """Sign in as a browser behind the proxy would: the cookies it was given (a Secure
    cookie of path /arena, which httpx would not send to http://.../login) sent back."""
    form = server.get("/login", headers=headers)
    assert form.status_code == 200
    assert f'action="{prefix}/login"' in form.text  # the form posts back through the proxy
    cookie = form.headers["set-cookie"].split(";")[0]
    return httpx.post(
        f"{server.url}/login",
        data={"token": token, "csrf": _csrf(form.text)},
        headers={**headers, "Cookie": cookie},
        timeout=30,
    )


def test_behind_a_reverse_proxy(tmp_path: Path) -> None:
    """Mounted at /arena by a proxy that strips the prefix and says the client came over
    HTTPS: every link carries the prefix and the session cookie is Secure. The same
    headers from a machine that is not the trusted proxy change nothing."""
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    token = add_author(db, "dora", tmp_path / "data")
    https = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7"}
    running = Server(
        db,
        tmp_path / "data",
        tmp_path / "server.log",
        "--no-ladder",
        "--behind-proxy",
        "--root-path",
        "/arena",
    )
    running.start()
    try:
        front = running.get("/", headers=https)
        assert front.status_code == 200
        links = re.findall(r'(?:href|action)="(/[^"]*)"', front.text)
        assert links and all(link.startswith("/arena/") for link in links), links
        signed_in = _sign_in(running, token, https, "/arena")
        assert signed_in.status_code == 303
        assert signed_in.headers["location"].startswith("/arena/")
        cookie = signed_in.headers["set-cookie"].lower()
        assert "secure" in cookie and "path=/arena" in cookie
    finally:
        running.stop()
    untrusted = Server(
        db,
        tmp_path / "data",
        tmp_path / "server2.log",
        "--no-ladder",
        "--behind-proxy",
        "--forwarded-allow-ips",
        "192.0.2.1",
    )
    untrusted.start()
    try:
        signed_in = _sign_in(untrusted, token, https, "")
        assert signed_in.status_code == 303
        assert "secure" not in signed_in.headers["set-cookie"].lower()
    finally:
        untrusted.stop()


def test_the_server_starts_without_a_page_of_migration_logging(
    server: tuple[Server, str, str, Path],
) -> None:
    running, _, _, _ = server
    log = running.log_path.read_text(encoding="utf-8", errors="replace")
    # Alembic's plugins and each migration once took seven lines; the database was made
    # by add-author here, so none ran and nothing is said.
    assert "alembic" not in log and "Running upgrade" not in log
    assert "Application startup complete" in log
