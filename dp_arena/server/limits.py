"""Limits per client address: every request, and more tightly every request that writes
(any method but GET and HEAD: uploads, deletions, sign-ins, forms), counted per address
in a token bucket. Over the limit, the answer is 429 with ``Retry-After``, before the
request reaches a route, a token check or the database.

The address is the connection's, or behind a reverse proxy (``--behind-proxy``) the
client's as the trusted proxy says (uvicorn puts it in the ASGI scope). Counts live in
the server's memory: a restart forgets them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["Bucket", "RateLimit", "Rates"]

# Addresses remembered at most; past it, the buckets that are full again are forgotten
# (they would allow a burst anyway), so a flood of addresses cannot exhaust memory.
MAX_ADDRESSES = 10_000
READS = frozenset({"GET", "HEAD"})


@dataclass(slots=True)
class Bucket:
    """``capacity`` tokens, refilled at ``rate`` a second; a request takes one."""

    capacity: float
    rate: float
    tokens: float
    updated: float

    def take(self, now: float) -> float:
        """Take a token: 0.0, or the seconds until one is there (then nothing is taken)."""
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate

    def full(self, now: float) -> bool:
        return self.tokens + (now - self.updated) * self.rate >= self.capacity


@dataclass(frozen=True, slots=True)
class Rates:
    """Requests a minute per address: all of them, and those that write (0: no limit).
    A client may spend a quarter of a minute's allowance at once (at least 5 requests)."""

    requests_per_minute: int = 1200
    writes_per_minute: int = 120

    def bucket(self, per_minute: int, now: float) -> Bucket:
        burst = max(5.0, per_minute / 4)
        return Bucket(burst, per_minute / 60.0, burst, now)


class RateLimit:
    """ASGI middleware: the per-address limits of ``rates``, answered with ``refuse``
    (request, seconds to wait) when a client is over one."""

    def __init__(
        self,
        app: ASGIApp,
        rates: Rates,
        refuse: Callable[[Request, int], Response],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app, self.rates, self.refuse, self.clock = app, rates, refuse, clock
        self.requests: dict[str, Bucket] = {}
        self.writes: dict[str, Bucket] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = str(client[0]) if client else "unknown"
        wait = self.wait(address, writes=scope.get("method", "GET") not in READS)
        if wait:
            response = self.refuse(Request(scope, receive), max(1, math.ceil(wait)))
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def wait(self, address: str, *, writes: bool) -> float:
        """Count a request of ``address``: 0.0, or the seconds it must wait."""
        now = self.clock()
        budgets = [(self.requests, self.rates.requests_per_minute)]
        if writes:
            budgets.append((self.writes, self.rates.writes_per_minute))
        for buckets, per_minute in budgets:
            if per_minute <= 0:
                continue
            bucket = buckets.get(address)
            if bucket is None:
                if len(buckets) >= MAX_ADDRESSES:
                    self._forget(buckets, now)
                bucket = buckets[address] = self.rates.bucket(per_minute, now)
            wait = bucket.take(now)
            if wait:
                return wait
        return 0.0

    @staticmethod
    def _forget(buckets: dict[str, Bucket], now: float) -> None:
        for address in [address for address, bucket in buckets.items() if bucket.full(now)]:
            del buckets[address]
        if len(buckets) >= MAX_ADDRESSES:  # all busy: forget the oldest half
            for address in list(buckets)[: len(buckets) // 2]:
                del buckets[address]
