"""A seat process forked from a warm template (:mod:`~dp_arena.sandbox.dealer.template`).

A :class:`ForkedProcess` stands for a forked seat where :class:`subprocess.Popen` stands
for an exec'd one: its pipes, ``poll``, ``wait`` and ``kill``. Its first process, the
init (pid 1 of the seat's PID namespace), is known by a pidfd it hands over itself, so
a kill can never reach a process that merely reused its pid; the bot's exit status
comes over the seat's status socket.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import signal
import socket
import subprocess
import time
from typing import IO

__all__ = ["ForkedProcess", "readable", "ready"]


def readable(sock: socket.socket, deadline: float | None) -> bool:
    timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
    try:
        return ready(sock, timeout)
    except (OSError, ValueError):
        return True  # closed: the next read says so


def ready(source: int | socket.socket, timeout: float | None) -> bool:
    """Whether ``source`` is readable, at its end or in error within ``timeout`` seconds
    (``None``: no limit). ``poll``, never ``select``, which refuses every descriptor
    from 1,024 on: a dealer holding that many (a busy server) would fail every seat."""
    poller = select.poll()
    poller.register(source, select.POLLIN)
    return bool(poller.poll(None if timeout is None else math.ceil(timeout * 1000)))


class ForkedProcess:
    """A seat process forked from a template, with the parts of :class:`subprocess.Popen`
    a seat uses. ``pid`` is its init's (the root of its tree, as the host sees it)."""

    def __init__(self, status: socket.socket, pid: int, pidfd: int, pipes: tuple[int, int, int]):
        self._status = status
        self.pid = pid
        self._pidfd: int | None = pidfd
        self.returncode: int | None = None
        self.closed = False  # the status socket's end: the init has exited, or is exiting
        # The init has exited: its pidfd says so only once the kernel has killed every
        # other process of its PID namespace and seen them end.
        self.gone = False
        self.setup_error: str | None = None
        self.stdin: IO[bytes] = os.fdopen(pipes[0], "wb", buffering=0)
        self.stdout: IO[bytes] = os.fdopen(pipes[1], "rb", buffering=0)
        self.stderr: IO[bytes] = os.fdopen(pipes[2], "rb", buffering=0)
        self.args = f"forked seat {pid}"

    def _read_status(self, deadline: float | None, *, to_end: bool = False) -> None:
        while (
            not self.closed
            and (self.returncode is None or to_end)
            and readable(self._status, deadline)
        ):
            try:
                data = self._status.recv(4096)
            except OSError:
                data = b""
            if not data:
                self.closed = True
                if self.returncode is None:  # ended without a word: only SIGKILL does that
                    self.returncode = -signal.SIGKILL
                return
            with contextlib.suppress(ValueError):
                message = json.loads(data)
                if "error" in message:
                    self.setup_error = str(message["error"])
                elif "exit" in message and isinstance(message["exit"], int):
                    self.returncode = message["exit"]
            deadline = time.monotonic()  # only what is already there, from now on

    def poll(self) -> int | None:
        self._read_status(time.monotonic())
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            self._read_status(deadline)
            if self.returncode is None and deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return self.returncode

    def wait_gone(self, timeout: float) -> bool:
        """Wait until the init has exited, which the kernel lets it do only once every
        other process of the seat's PID namespace is dead, however the init ended (by its
        own exit, the dealer's kill, or its template's death); whether it did."""
        deadline = time.monotonic() + timeout
        while not self.closed and time.monotonic() < deadline:
            self._read_status(deadline, to_end=True)
        if self.closed and not self.gone and self._pidfd is not None:
            # The init closes its end of the socket as it exits, before the kernel ends
            # the rest of its namespace; its pidfd is readable after.
            timeout = max(0.0, deadline - time.monotonic())
            with contextlib.suppress(OSError, ValueError):
                self.gone = ready(self._pidfd, timeout)
        return self.gone

    def kill(self) -> None:
        """SIGKILL the init, pid 1 of the seat's PID namespace: the kernel kills every
        other process of the namespace with it."""
        if self._pidfd is not None:
            with contextlib.suppress(ProcessLookupError, OSError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def release(self) -> None:
        """Close the status socket and the pidfd (after the seat is dead)."""
        with contextlib.suppress(OSError):
            self._status.close()
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
            self._pidfd = None
