"""One line of progress on a terminal: the one progress display of every command.

A :class:`ProgressLine` is rewritten in place on ``stream`` (stderr) when it is a
terminal, at most every ``interval`` seconds (and whenever a line is forced: a stage
begins, a count reaches its end), and cleared by :meth:`~ProgressLine.finish` so that
what the command prints next starts on a fresh line::

    Luck-adjusted, run-1: 812/2,040 table-sessions  [4 s]      (timed=True)

Where the stream is no terminal (a log, a pipe, CI) it writes nothing, or, given
``log_every``, the whole line now and then: every ``log_every`` seconds and whenever it
is forced. Clocks here only time and report; nothing they say reaches the results. A run,
a match, a replay, the luck study and a leaderboard's publication all show their progress
through it; each composes its own text.

>>> import io
>>> log = io.StringIO()
>>> line = ProgressLine(log, log_every=0.0)
>>> line.count("replay", 3, 3, "table-sessions")
>>> log.getvalue()
'replay: 3/3 table-sessions\\n'
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO

__all__ = ["ProgressLine", "format_duration"]


def format_duration(seconds: float) -> str:
    """``1:02:03`` / ``0:04:05``."""
    whole = max(0, round(seconds))
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


class ProgressLine:
    """A progress line on ``stream`` (stderr): rewritten in place on a terminal (unless
    ``live`` is false: ``--quiet``), written whole every ``log_every`` seconds elsewhere if
    asked; ``timed`` adds the seconds since it began."""

    def __init__(
        self,
        stream: IO[str] | None = None,
        *,
        live: bool | None = None,
        interval: float = 0.1,
        log_every: float | None = None,
        timed: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        is_terminal = self.stream.isatty()
        self.live = is_terminal if live is None else live and is_terminal
        self.logging = not is_terminal and log_every is not None and live is not False
        self.interval = interval
        self.log_every = log_every
        self.timed = timed
        self.clock = clock
        self.started = clock()
        self.text = ""
        self._drawn_at = -interval
        self._logged_at = clock()
        self._dirty = False

    @property
    def elapsed(self) -> float:
        return self.clock() - self.started

    def show(self, text: str, *, force: bool = False) -> None:
        """Show ``text`` as the line: drawn now if forced or if the last drawing is
        ``interval`` seconds old (on a terminal), logged whole if forced or ``log_every``
        seconds after the last (elsewhere)."""
        self.text = text
        if self.live:
            now = self.clock()
            if force or now - self._drawn_at >= self.interval:
                self._drawn_at = now
                self._dirty = True
                suffix = f"  [{self.elapsed:.0f} s]" if self.timed else ""
                print(f"\r{text}{suffix}\x1b[K", end="", file=self.stream, flush=True)
        elif self.logging:
            now = self.clock()
            assert self.log_every is not None
            if force or now - self._logged_at >= self.log_every:
                self._logged_at = now
                print(text, file=self.stream, flush=True)

    def stage(self, label: str) -> None:
        """A step whose length is not counted: ``label ...``."""
        self.show(f"{label} ...", force=True)

    def count(self, label: str, done: int, total: int, unit: str) -> None:
        """``done`` of ``total`` ``unit`` of a step: ``label: done/total unit``."""
        self.show(f"{label}: {done:,}/{total:,} {unit}", force=done >= total)

    def finish(self) -> None:
        """Clear the line on a terminal (the command prints what it did next)."""
        if self.live and self._dirty:
            print("\r\x1b[K", end="", file=self.stream, flush=True)
            self._dirty = False
