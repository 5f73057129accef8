"""Connections no client can hold for ever: uvicorn's HTTP/1.1 protocol with a deadline for
each request's head and body, and a cap on connections from one address and in all.

- **Head**: a connection must send a whole request head (request line and headers)
  within ``header_timeout`` seconds of opening, or of its first byte after an answer;
  else it is closed. A client that connects and sends nothing, or sends its headers a
  byte at a time, holds its connection that long at most.
- **Body**: the body must arrive within ``body_timeout`` seconds of its head.
- **Idle**: between requests, a kept-alive connection waits ``idle_timeout`` seconds
  (uvicorn's keep-alive timeout).
- **How many**: at most ``max_connections`` open at once, and ``per_client`` from one
  address (a trusted proxy's connections count only in all: its clients are told apart
  by the limits per request, :mod:`dp_arena.server.limits`). A connection over either
  is answered ``503`` with ``Retry-After`` and closed at once, before anything is read.

The server raises its own limit of open files to what the system allows, and the
event loop waits on epoll, so no number of connections makes a descriptor unusable.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import resource
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["ConnectionGuard", "guarded_protocol", "raise_open_files"]

log = logging.getLogger("dp_arena.server")

BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"retry-after: 5\r\nconnection: close\r\ncontent-length: 44\r\n\r\n"
    b"too many connections; try again in a moment\n"
)


@dataclass
class ConnectionGuard:
    """The limits, and the connections open now: in all and by address."""

    header_timeout: float = 10.0
    body_timeout: float = 120.0
    max_connections: int = 1000
    per_client: int = 50
    trusted: tuple[str, ...] = ()
    by_address: dict[str, int] = field(default_factory=dict)
    total: int = 0
    refused: int = 0
    timed_out: int = 0

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address``: ``False`` (nothing counted) when it is
        over a cap."""
        count = self.by_address.get(address, 0)
        over_client = count >= self.per_client and not self.is_trusted(address)
        if self.total >= self.max_connections or over_client:
            self.refused += 1
            return False
        self.total += 1
        self.by_address[address] = count + 1
        return True

    def release(self, address: str) -> None:
        self.total -= 1
        left = self.by_address.get(address, 1) - 1
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)

    def is_trusted(self, address: str) -> bool:
        if "*" in self.trusted:
            return True
        try:
            client = ipaddress.ip_address(address)
        except ValueError:
            return False
        for entry in self.trusted:
            try:
                if client in ipaddress.ip_network(entry, strict=False):
                    return True
            except ValueError:
                continue
        return False


def guarded_protocol(guard: ConnectionGuard) -> type[H11Protocol]:
    """uvicorn's h11 protocol class with ``guard``'s limits (see the module)."""

    class Guarded(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            peer = transport.get_extra_info("peername")
            self._address = str(peer[0]) if peer else "unknown"
            self._admitted = guard.admit(self._address)
            self._head_timer: asyncio.TimerHandle | None = None
            self._body_timer: asyncio.TimerHandle | None = None
            super().connection_made(transport)
            if not self._admitted:
                transport.write(BUSY)
                transport.close()
                return
            self._arm_head()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._admitted:
                self._admitted = False
                guard.release(self._address)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if not self._admitted:
                return  # refused: nothing it sends is read
            super().data_received(data)
            self._follow()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._follow()

        def _follow(self) -> None:
            """Deadlines by where the request stands: waiting for its head, receiving
            its body, or received (the answer's to come, or the idle timeout's)."""
            if self.transport.is_closing():
                self._disarm()
                return
            state = self.conn.their_state
            if state is h11.IDLE:
                if self._head_timer is None and self.timeout_keep_alive_task is None:
                    self._arm_head()
            else:
                self._cancel_head()
                if state is h11.SEND_BODY and self._body_timer is None:
                    self._body_timer = self.loop.call_later(guard.body_timeout, self._expire)
                elif state is not h11.SEND_BODY and self._body_timer is not None:
                    self._body_timer.cancel()
                    self._body_timer = None

        def _arm_head(self) -> None:
            self._cancel_head()
            self._head_timer = self.loop.call_later(guard.header_timeout, self._expire)

        def _cancel_head(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _disarm(self) -> None:
            self._cancel_head()
            if self._body_timer is not None:
                self._body_timer.cancel()
                self._body_timer = None

        def _expire(self) -> None:
            self._head_timer = self._body_timer = None
            if not self.transport.is_closing():
                guard.timed_out += 1
                self.transport.abort()

    return Guarded


def raise_open_files(wanted: int) -> int:
    """Raise this process's limit of open files towards ``wanted`` (at most the hard
    limit); the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as error:
            log.warning("could not raise the limit of open files to %s: %s", target, error)
    return int(soft)


def trusted_addresses(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """``--forwarded-allow-ips`` as a tuple of addresses, networks or ``*``."""
    if value is None:
        return ()
    items: Any = value.split(",") if isinstance(value, str) else value
    return tuple(item.strip() for item in items if item.strip())
