"""A bounded load test of the competition server on loopback, while its ladder plays: for
``SECONDS`` seconds, ``READERS`` clients read its pages and API as fast as they are
answered (the leaderboard, the front page, the matches, a match's page, its hand
histories), ``UPLOADS`` authors each upload a bot at a random moment (checked in the
sandbox meanwhile), and ``SLOW`` clients hold connections open by sending their request
heads a byte at a time (cut at the server's head deadline, then opening again).

The ladder is three-handed, of house bots (tag, calling-station, random) and the bots
uploaded as they are accepted. Figures: requests answered per second, their latency
(median, 95th and 99th percentile, largest), every answer's status, the slow clients'
connections cut by the server, the ladder's finished matches per minute during the load
and, for comparison, without it.

Everything goes to 127.0.0.1 and stops by itself: a fixed duration, each request with a
timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

SECONDS = 30.0
READERS = 40
UPLOADS = 20
SLOW = 50
HEADER_TIMEOUT = 5.0
QUIET_SECONDS = 20.0  # the ladder alone, before the load, for its pace without it

BOT = """from dp_arena.engine import Action, ActionKind


class Bot:
    def act(self, observation):
        if observation.can(ActionKind.CALL) and observation.to_call <= {limit}:
            return Action.call()
        return Action.check() if observation.can(ActionKind.CHECK) else Action.fold()
"""


def _archive(index: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.writestr("bot.toml", f'name = "load-{index}"\nversion = "1"\nentry = "bot.py:Bot"\n')
        bundle.writestr("bot.py", BOT.format(limit=20 * (1 + index % 7)))
    return buffer.getvalue()


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _summary(times: list[float]) -> dict[str, float]:
    if not times:
        return {}
    ordered = sorted(times)
    return {
        "median_ms": round(1000 * statistics.median(ordered), 1),
        "p95_ms": round(1000 * _percentile(ordered, 0.95), 1),
        "p99_ms": round(1000 * _percentile(ordered, 0.99), 1),
        "max_ms": round(1000 * ordered[-1], 1),
    }


async def _finished(client: Any) -> int:
    answer = await client.get("/api/leaderboard")
    return int(answer.json()["matches"])


async def _slow_client(port: int, until: float, cut: list[int]) -> None:
    """A connection that sends its head a byte a second; opened again when cut."""
    head = b"GET /api/leaderboard HTTP/1.1\r\nHost: bench\r\nX-Padding: " + b"x" * 200
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.5)
            continue
        try:
            for byte in head:
                if time.monotonic() >= until:
                    break
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(1.0)
                if reader.at_eof():
                    cut[0] += 1
                    break
        except (ConnectionError, OSError):
            cut[0] += 1
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()


async def _load(url: str, port: int, tokens: list[str]) -> dict[str, Any]:
    import httpx

    limits = httpx.Limits(max_connections=READERS + UPLOADS + 10)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
        quiet_from = time.monotonic()
        quiet_start = await _finished(client)
        await asyncio.sleep(QUIET_SECONDS)
        quiet = (await _finished(client) - quiet_start) / ((time.monotonic() - quiet_from) / 60)
        matches = (await client.get("/api/matches?limit=20")).json()["matches"]
        shown = [match["id"] for match in matches if match["status"] == "finished"][:5]
        paths = ["/api/leaderboard", "/", "/matches", "/api/matches?limit=20"]
        paths += [f"/matches/{number}" for number in shown]
        paths += [f"/api/matches/{number}/hands" for number in shown]
        latencies: list[float] = []
        statuses: dict[str, int] = {}
        cut = [0]
        started = time.monotonic()
        until = started + SECONDS
        first_count = await _finished(client)

        async def reader(seed: int) -> None:
            chooser = random.Random(seed)
            while time.monotonic() < until:
                path = chooser.choice(paths)
                began = time.perf_counter()
                try:
                    answer = await client.get(path)
                    key = str(answer.status_code)
                except httpx.HTTPError as error:
                    key = type(error).__name__
                latencies.append(time.perf_counter() - began)
                statuses[key] = statuses.get(key, 0) + 1

        async def upload(index: int) -> None:
            await asyncio.sleep(random.Random(index).uniform(0, SECONDS * 0.8))
            began = time.perf_counter()
            try:
                answer = await client.post(
                    "/api/bots",
                    content=_archive(index),
                    headers={
                        "Authorization": f"Bearer {tokens[index]}",
                        "Content-Type": "application/zip",
                    },
                )
                key = f"upload {answer.status_code}"
            except httpx.HTTPError as error:
                key = f"upload {type(error).__name__}"
            latencies.append(time.perf_counter() - began)
            statuses[key] = statuses.get(key, 0) + 1

        await asyncio.gather(
            *(reader(seed) for seed in range(READERS)),
            *(upload(index) for index in range(UPLOADS)),
            *(_slow_client(port, until, cut) for _ in range(SLOW)),
        )
        elapsed = time.monotonic() - started
        played = await _finished(client) - first_count
        accepted = sum(
            1
            for line in (await client.get("/api/leaderboard")).json()["bots"]
            if line["name"].startswith("load-")
        )
    return {
        "seconds": round(elapsed, 1),
        "readers": READERS,
        "uploads": UPLOADS,
        "slow_clients": SLOW,
        "requests": len(latencies),
        "requests_per_second": round(len(latencies) / elapsed, 1),
        "latency": _summary(latencies),
        "statuses": dict(sorted(statuses.items())),
        "slow_connections_cut": cut[0],
        "matches_per_minute": round(played / (elapsed / 60), 1),
        "matches_per_minute_without_load": round(quiet, 1),
        "uploads_accepted_by_the_end": accepted,
    }


def run() -> dict[str, Any]:
    from dp_arena.server import crud
    from dp_arena.server.db import Database

    with tempfile.TemporaryDirectory(prefix="dp-arena-bench-server-") as folder:
        db = f"sqlite:///{folder}/arena.db"
        database = Database(db)
        database.migrate()
        tokens = []
        with database.session() as session:
            for index in range(UPLOADS):
                tokens.append(crud.add_author(session, f"author-{index}")[1])
        database.close()
        port = _port()
        log = open(Path(folder) / "server.log", "wb")  # noqa: SIM115 - the server writes it
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dp_arena.cli",
                "serve",
                "--db",
                db,
                "--port",
                str(port),
                "--table-size",
                "3",
                "--house-bots",
                "tag,calling-station,random",
                "--ladder-deals",
                "50",
                "--check-states",
                "50",
                "--resamples",
                "200",
                "--uploads-per-hour",
                "100",
                "--header-timeout",
                str(HEADER_TIMEOUT),
                # Every client is one loopback address: the per-address limits would
                # answer most of them 429 or 503, which is not what this measures.
                "--requests-per-minute",
                "0",
                "--writes-per-minute",
                "0",
                "--max-connections-per-client",
                "1000",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            import httpx

            url = f"http://127.0.0.1:{port}"
            for _ in range(300):
                try:
                    if httpx.get(f"{url}/api/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            figures = asyncio.run(_load(url, port, tokens))
            stopped = time.monotonic()
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(60)
            figures["stop_seconds"] = round(time.monotonic() - stopped, 2)
        finally:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
            log.close()
    for name, value in figures.items():
        print(f"{name}: {value}")
    return figures


if __name__ == "__main__":
    run()
