"""A bounded load test of the competition server on loopback: 50 authors upload a bot
each at the same moment while 50 readers fetch the leaderboard 10 times each, with the
upload checker and the ladder running; then how long the 50 sandboxed checks take.

Everything goes to 127.0.0.1 and stops by itself: a fixed number of requests, each with
a timeout. Figures: each kind of request's latency (median, 95th percentile, largest),
the requests per second while both ran, and every answer's status.
"""

from __future__ import annotations

import asyncio
import io
import os
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

UPLOADS = 50
READERS = 50
READS_EACH = 10

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


def _summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "median_ms": round(1000 * statistics.median(ordered), 1),
        "p95_ms": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 1),
        "max_ms": round(1000 * ordered[-1], 1),
    }


async def _load(url: str, tokens: list[str]) -> dict[str, Any]:
    import httpx

    limits = httpx.Limits(max_connections=UPLOADS + READERS)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
        uploads: list[float] = []
        reads: list[float] = []
        statuses: dict[str, int] = {}

        async def upload(index: int) -> int:
            started = time.perf_counter()
            answer = await client.post(
                "/api/bots",
                content=_archive(index),
                headers={
                    "Authorization": f"Bearer {tokens[index]}",
                    "Content-Type": "application/zip",
                },
            )
            uploads.append(time.perf_counter() - started)
            key = f"upload {answer.status_code}"
            statuses[key] = statuses.get(key, 0) + 1
            return int(answer.json().get("id", 0))

        async def reader() -> None:
            for _ in range(READS_EACH):
                started = time.perf_counter()
                answer = await client.get("/api/leaderboard")
                reads.append(time.perf_counter() - started)
                key = f"leaderboard {answer.status_code}"
                statuses[key] = statuses.get(key, 0) + 1

        started = time.perf_counter()
        results = await asyncio.gather(
            *(upload(index) for index in range(UPLOADS)), *(reader() for _ in range(READERS))
        )
        burst = time.perf_counter() - started
        ids = [result for result in results[:UPLOADS] if isinstance(result, int) and result]
        checked_from = time.perf_counter()
        deadline = checked_from + 900
        remaining = set(ids)
        while remaining and time.perf_counter() < deadline:
            for submission in sorted(remaining):
                answer = await client.get(f"/api/bots/{submission}")
                if answer.json().get("status") != "checking":
                    remaining.discard(submission)
            await asyncio.sleep(1.0)
        checks = time.perf_counter() - checked_from
        accepted = 0
        for submission in ids:
            answer = await client.get(f"/api/bots/{submission}")
            accepted += answer.json().get("status") == "accepted"
        board = (await client.get("/api/leaderboard")).json()
    return {
        "uploads": _summary(uploads),
        "leaderboard_reads": _summary(reads),
        "requests": UPLOADS + READERS * READS_EACH,
        "burst_seconds": round(burst, 2),
        "requests_per_second": round((UPLOADS + READERS * READS_EACH) / burst, 1),
        "statuses": dict(sorted(statuses.items())),
        "checks_seconds": round(checks, 1),
        "checks_left": len(remaining),
        "accepted": accepted,
        "matches_by_then": board.get("matches"),
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
                "--ladder-deals",
                "20",
                "--check-states",
                "50",
                "--uploads-per-hour",
                "100",
                # 100 clients on one loopback address: the per-address limits would
                # answer most of them 429, which is not what this measures.
                "--requests-per-minute",
                "0",
                "--writes-per-minute",
                "0",
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
            figures = asyncio.run(_load(url, tokens))
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(60)
            log.close()
    figures["check_states"] = 50
    for name, value in figures.items():
        print(f"{name}: {value}")
    return figures


if __name__ == "__main__":
    run()
