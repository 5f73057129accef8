"""What a long publication is doing, on a terminal: one line on stderr, rewritten in
place at most ten times a second (``Luck-adjusted, run-1: 812/2,040 table-sessions
[4 s]``); nothing at all when the stream is not a terminal (a log, a pipe, CI)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO

__all__ = ["Progress"]

INTERVAL = 0.1  # seconds between redraws


class Progress:
    """A progress line on ``stream`` (stderr), live only on a terminal."""

    def __init__(
        self, stream: IO[str] | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty()
        self.clock = clock
        self.started = clock()
        self.drawn = -INTERVAL
        self.dirty = False

    def _draw(self, text: str) -> None:
        elapsed = self.clock() - self.started
        print(f"\r{text}  [{elapsed:.0f} s]\x1b[K", end="", file=self.stream, flush=True)
        self.drawn = self.clock()
        self.dirty = True

    def stage(self, label: str) -> None:
        """A step whose length is not counted."""
        if self.live:
            self._draw(f"{label} ...")

    def count(self, label: str, done: int, total: int, unit: str) -> None:
        """``done`` of ``total`` ``unit`` of a step."""
        if self.live and (done >= total or self.clock() - self.drawn >= INTERVAL):
            self._draw(f"{label}: {done:,}/{total:,} {unit}")

    def finish(self) -> None:
        """Clear the line (the command prints what it did next)."""
        if self.live and self.dirty:
            print("\r\x1b[K", end="", file=self.stream, flush=True)
            self.dirty = False
