"""Bounded, deadline-driven I/O on a bot process's three pipes.

The dealer never blocks on a bot: every write and read waits at most until a deadline
(``poll`` on the pipes, wall clock), a line longer than the message limit is refused
and skipped instead of being buffered, and the bot's stderr is drained whenever the
dealer waits, into a capped log, so a bot that floods it only stalls itself.
"""

from __future__ import annotations

import contextlib
import os
import select
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["BotLog", "Closed", "Oversized", "Pipes"]

_CHUNK = 65536


class Closed(Exception):
    """The bot closed its end of a pipe (it exited or crashed)."""


class Oversized(Exception):
    """The bot sent a line over the message limit; it is skipped."""


class BotLog:
    """A bot's stderr and anything else worth keeping about it: at most ``limit`` bytes
    go to ``path`` (when given); the last few kilobytes stay in memory for fault reports."""

    TAIL = 4096

    def __init__(self, path: Path | None, limit: int) -> None:
        self.path = path
        self.limit = limit
        self.written = 0
        self.truncated = False
        self.tail = bytearray()
        self._file = open(path, "ab") if path is not None else None  # noqa: SIM115 - lives as long as the bot

    def write(self, data: bytes) -> None:
        self.tail += data
        if len(self.tail) > self.TAIL:
            del self.tail[: len(self.tail) - self.TAIL]
        if self._file is None:
            return
        room = self.limit - self.written
        if room > 0:
            self._file.write(data[:room])
            self.written += min(room, len(data))
        if len(data) > room and not self.truncated:
            self.truncated = True
            self._file.write(f"\n[dp-arena: log truncated at {self.limit} bytes]\n".encode())

    def note(self, text: str) -> None:
        """A line from the dealer about this bot (a stray message, a fault)."""
        self.write(f"[dp-arena] {text}\n".encode("utf-8", "replace"))

    def tail_text(self, limit: int = 600) -> str:
        return bytes(self.tail[-limit:]).decode("utf-8", "replace").strip()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class Pipes:
    """The dealer's ends of a bot's stdin (``to_bot``), stdout (``from_bot``) and stderr."""

    def __init__(
        self, to_bot: int, from_bot: int, stderr: int, *, message_bytes: int, log: BotLog
    ) -> None:
        self.to_bot = to_bot
        self.from_bot = from_bot
        self.stderr = stderr
        self.message_bytes = message_bytes
        self.log = log
        self._buffer = bytearray()
        self._skipping = False  # inside an oversized line: drop bytes up to its newline
        self._stdout_open = True
        self._stderr_open = True
        os.set_blocking(to_bot, False)
        os.set_blocking(from_bot, False)
        os.set_blocking(stderr, False)
        self._poll_read = select.poll()
        self._poll_read.register(from_bot, select.POLLIN)
        self._poll_read.register(stderr, select.POLLIN)

    # -- writing ----------------------------------------------------------------------

    def send(self, data: bytes, deadline: float) -> bool:
        """Write ``data`` whole; False if the bot did not take it by ``deadline``.
        :class:`Closed` if the bot's stdin is closed."""
        view = memoryview(data)
        while view:
            try:
                written = os.write(self.to_bot, view)
                view = view[written:]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, OSError) as error:
                raise Closed(f"stdin closed ({type(error).__name__})") from None
            # The pipe is full: the bot is not reading. Keep its stderr flowing meanwhile.
            poller = select.poll()
            poller.register(self.to_bot, select.POLLOUT)
            if self._stderr_open:
                poller.register(self.stderr, select.POLLIN)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            for fd, _ in poller.poll(remaining * 1000):
                if fd == self.stderr:
                    self._drain_stderr()
        return True

    # -- reading ----------------------------------------------------------------------

    def read_line(self, deadline: float | None) -> bytes | None:
        """The next line from the bot's stdout (without its newline), or None when
        ``deadline`` passes first (``None``: do not wait at all, only what is there).
        :class:`Oversized` for a line over the limit (it is skipped), :class:`Closed`
        at end of file."""
        while True:
            line = self._take_line()
            if line is not None:
                return line
            if not self._stdout_open:
                raise Closed("stdout closed")
            timeout_ms = 0 if deadline is None else max(0.0, (deadline - time.monotonic()) * 1000)
            events = self._poll_read.poll(timeout_ms)
            if not events:
                return None
            for fd, _ in events:
                if fd == self.stderr:
                    self._drain_stderr()
                else:
                    self._read_stdout()

    def _take_line(self) -> bytes | None:
        buffer = self._buffer
        newline = buffer.find(b"\n")
        if self._skipping:
            if newline < 0:
                buffer.clear()
                return None
            del buffer[: newline + 1]
            self._skipping = False
            newline = buffer.find(b"\n")
        if newline >= 0:
            if newline > self.message_bytes:
                del buffer[: newline + 1]
                raise Oversized(f"a message over {self.message_bytes} bytes")
            line = bytes(buffer[:newline])
            del buffer[: newline + 1]
            return line
        if len(buffer) > self.message_bytes:
            buffer.clear()
            self._skipping = True
            raise Oversized(f"a message over {self.message_bytes} bytes")
        return None

    def _read(self, fd: int) -> bytes | None:
        """One chunk of what the bot wrote on ``fd`` (its stdout or its stderr), or
        ``None``: nothing is there yet, or the bot has closed it (it is then marked
        closed and no longer polled)."""
        try:
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:
            return None
        except OSError:
            chunk = b""
        if chunk:
            return chunk
        self._poll_read.unregister(fd)
        if fd == self.from_bot:
            self._stdout_open = False
        else:
            self._stderr_open = False
        return None

    def _read_stdout(self) -> None:
        chunk = self._read(self.from_bot)
        if chunk:
            self._buffer += chunk

    def _drain_stderr(self, budget: int = 4 * _CHUNK) -> None:
        while budget > 0 and self._stderr_open:
            chunk = self._read(self.stderr)
            if not chunk:
                return
            self.log.write(chunk)
            budget -= len(chunk)

    def drain_stderr(self) -> None:
        self._drain_stderr()

    def partial(self) -> bytes:
        """The bytes of a line the bot has begun but not ended (empty if none)."""
        return b"" if self._skipping else bytes(self._buffer[:4096])

    def drain_lines(self, handle: Callable[[bytes | None], None], byte_budget: int) -> None:
        """Hand every complete line already sent to ``handle`` (``None`` for an oversized
        one), reading at most about ``byte_budget`` bytes: a bot flooding its stdout
        cannot keep the dealer here."""
        while byte_budget > 0:
            try:
                line = self.read_line(None)
            except Oversized:
                handle(None)
                byte_budget -= self.message_bytes
                continue
            if line is None:
                return
            handle(line)
            byte_budget -= len(line) + 1

    def close(self, owned_elsewhere: frozenset[int] = frozenset()) -> None:
        """Close the three fds, but those ``owned_elsewhere`` (by file objects that
        close them themselves: a second close could hit an fd another thread opened)."""
        for fd in (self.to_bot, self.from_bot, self.stderr):
            if fd not in owned_elsewhere:
                with contextlib.suppress(OSError):
                    os.close(fd)
