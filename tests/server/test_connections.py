"""No client can freeze the server, tested against a real one while its ladder plays (house
bots only, so that no upload is needed): 1,100 idle connections are held, past the
server's 1,024th descriptor, while it answers others and the ladder goes on, and are
closed at their head's deadline; clients that send their head or body a byte at a time
are cut at theirs; connections over the caps by address and in all are refused at once;
SIGTERM stops it within 10 s with all that open, and the match it cut is played again
with its key; ids and numbers out of range are 404 and 422, never 500."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from dp_arena.server.matches import verify_match

from .helpers import Server

IDLE = 1_100


@pytest.fixture(autouse=True)
def _descriptors() -> Iterator[None]:
    """Room for the test's own connections."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, 4096))
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


OPEN: list[socket.socket] = []  # every connection a test made, closed at its end


@pytest.fixture(autouse=True)
def _close_connections() -> Iterator[None]:
    try:
        yield
    finally:
        while OPEN:
            OPEN.pop().close()


def _connect(server: Server, source: str = "127.0.0.1") -> socket.socket:
    connection = socket.create_connection(
        ("127.0.0.1", server.port), timeout=10, source_address=(source, 0)
    )
    connection.setblocking(True)
    OPEN.append(connection)
    return connection


def _closed_by_server(connection: socket.socket, within: float) -> bool:
    """Whether the server closes ``connection`` (or answers and closes) within ``within`` s."""
    connection.settimeout(within)
    try:
        while connection.recv(4096):
            pass
    except TimeoutError:
        return False
    except OSError:  # reset: closed as well
        return True
    return True


def _descriptors_of(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _finished(server: Server) -> int:
    matches = server.get("/api/matches?limit=200").json()["matches"]
    return sum(1 for match in matches if match["status"] == "finished")


def test_a_flood_of_idle_connections_and_a_stop_with_them_open(tmp_path: Path) -> None:
    server = Server(
        f"sqlite:///{tmp_path / 'arena.db'}",
        tmp_path / "data",
        tmp_path / "server.log",
        "--house-bots",
        "equity,calling-station",
        "--ladder-deals",
        "150",
        "--resamples",
        "50",
        "--header-timeout",
        "4",
        "--max-connections",
        "1500",
        "--max-connections-per-client",
        "1500",
    )
    server.start()
    idle: list[socket.socket] = []
    try:
        server.wait_for("/api/matches", lambda found: _finished(server) >= 1, timeout=60)
        opened = time.monotonic()
        for _ in range(IDLE):
            idle.append(_connect(server))
        assert server.process is not None
        pid = server.process.pid
        # Every idle connection is a descriptor of the server, once it has taken it.
        deadline = time.monotonic() + 3
        while _descriptors_of(pid) < 1024 + 50 and time.monotonic() < deadline:
            time.sleep(0.05)
        held = _descriptors_of(pid)
        assert held > 1024 + 50
        # Others are answered at once, and the ladder plays on (its pipes past 1,024).
        before = _finished(server)
        started = time.monotonic()
        assert server.get("/api/leaderboard").status_code == 200
        assert time.monotonic() - started < 2.0
        server.wait_for("/api/matches", lambda found: _finished(server) >= before + 1, timeout=30)
        # At its head's deadline every idle connection is closed by the server.
        assert all(
            _closed_by_server(connection, 4 + 8 - (time.monotonic() - opened))
            for connection in idle[:20]
        )
        time.sleep(max(0.0, opened + 6 - time.monotonic()))
        assert _descriptors_of(pid) < held - IDLE + 100
        for connection in idle:
            connection.close()
    finally:
        server.stop()
    # SIGTERM with 1,100 connections open and a match playing: out within 10 s, and the
    # match cut is played again with its key at the next start. A match seen playing may
    # end before the signal lands (it is then played once): the next one is tried.
    for _ in range(4):
        server.start()
        try:
            idle = [_connect(server) for _ in range(IDLE)]
            playing = server.wait_for(
                "/api/matches?limit=1",
                lambda found: found["matches"] and found["matches"][0]["status"] == "playing",
                step=0.05,
            )["matches"][0]
            assert server.process is not None
            stopped = time.monotonic()
            server.process.send_signal(signal.SIGTERM)
            server.process.wait(30)
            assert time.monotonic() - stopped < 10.0, server.log()
        finally:
            for connection in idle:
                connection.close()
            server.stop()
        server.start()
        try:
            replayed = server.wait_for(
                f"/api/matches/{playing['id']}",
                lambda match: match["status"] == "finished",
                timeout=60,
            )
            assert replayed["commitment"] == playing["commitment"]
            assert verify_match(replayed) == []
        finally:
            server.stop()
        # A match seen playing may itself be one an earlier stop cut short (its
        # attempts already counted): this stop cut it if it was played once more.
        if replayed["attempts"] == playing["attempts"] + 1:
            break
        assert replayed["attempts"] == playing["attempts"]  # finished before the signal
    else:
        pytest.fail("no match was cut by four stops: each finished before it")


def test_slow_clients_and_the_caps_on_connections(tmp_path: Path) -> None:
    server = Server(
        f"sqlite:///{tmp_path / 'arena.db'}",
        tmp_path / "data",
        tmp_path / "server.log",
        "--house-bots",
        "tag,calling-station",
        "--ladder-deals",
        "10",
        "--resamples",
        "50",
        "--header-timeout",
        "1.5",
        "--body-timeout",
        "2",
        "--max-connections",
        "30",
        "--max-connections-per-client",
        "20",
    )
    server.start()
    held: list[socket.socket] = []
    try:
        server.wait_for("/api/matches", lambda found: _finished(server) >= 1, timeout=60)
        # A head sent a byte at a time, a body that never ends: each cut at its deadline,
        # while another client is answered at once and the ladder plays on.
        slow_head, slow_body = _connect(server), _connect(server)
        slow_body.sendall(
            b"POST /api/bots HTTP/1.1\r\nHost: x\r\nContent-Type: application/zip\r\n"
            b"Content-Length: 100000\r\n\r\nPK"
        )
        started = time.monotonic()
        head = b"GET /api/leaderboard HTTP/1.1\r\nHost: x\r\n"
        cut = None
        for byte in head:
            try:
                slow_head.sendall(bytes([byte]))
            except OSError:
                cut = time.monotonic() - started
                break
            time.sleep(0.1)
            answer = server.get("/api/health")
            assert answer.status_code == 200 and answer.elapsed.total_seconds() < 1.5
        if cut is None:
            assert _closed_by_server(slow_head, 3)
            cut = time.monotonic() - started
        assert 1.0 <= cut <= 4.0
        assert _closed_by_server(slow_body, 4)
        assert time.monotonic() - started <= 5.0
        before = _finished(server)
        server.wait_for("/api/matches", lambda found: _finished(server) > before, timeout=30)
        # 20 at most from one address: the 21st is told 503 and closed at once.
        held = [_connect(server) for _ in range(20)]
        refused = _connect(server)
        refused.settimeout(5)
        assert refused.recv(200).startswith(b"HTTP/1.1 503")
        assert _closed_by_server(refused, 2)
        # 30 at most in all: another address gets 10, then 503.
        other = [_connect(server, "127.0.0.2") for _ in range(10)]
        held += other
        full = _connect(server, "127.0.0.3")
        full.settimeout(5)
        assert full.recv(200).startswith(b"HTTP/1.1 503")
        for connection in held:
            connection.close()
        held = []
        deadline = time.monotonic() + 5
        while True:  # the slots are free again once the server has seen them close
            with contextlib.suppress(httpx.HTTPError):
                if server.get("/api/health").status_code == 200:
                    break
            assert time.monotonic() < deadline
            time.sleep(0.1)
    finally:
        for connection in held:
            connection.close()
        server.stop()


def test_bad_ids_and_numbers_are_404_and_422(tmp_path: Path) -> None:
    server = Server(
        f"sqlite:///{tmp_path / 'arena.db'}",
        tmp_path / "data",
        tmp_path / "server.log",
        "--no-ladder",
    )
    server.start()
    try:
        huge = "9" * 23
        for path in (
            f"/api/bots/{huge}",
            f"/api/matches/{huge}",
            f"/api/matches/{huge}/hands",
            f"/matches/{huge}",
            f"/submissions/{huge}",
            "/api/bots/12",
            "/api/matches/-1",
            "/matches/1x",
        ):
            assert server.get(path).status_code == 404, path
        for query in (
            f"/api/matches?before={10**400}",
            f"/api/matches?before={'9' * 5000}",
            "/api/matches?before=-3",
            "/api/matches?limit=abc",
            f"/matches?before={10**400}",
        ):
            answer = server.get(query)
            assert answer.status_code == 422, query
        assert server.get("/api/matches?before=10").json() == {"matches": []}
        assert "500" not in server.log() and "Traceback" not in server.log()
    finally:
        server.stop()
