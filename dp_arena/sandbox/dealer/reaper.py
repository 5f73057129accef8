"""The reaper: finishes closing sandboxed seats in a thread of its own.

A table's seats are told goodbye and the next table sits down while they exit: the
reaper gives each the same grace as :meth:`~dp_arena.sandbox.ProcessSeat.close`, then
kills what is left of it (the seat's own end of closing, handed over as a callable).
"""

from __future__ import annotations

import atexit
import threading
import time
from collections import deque
from collections.abc import Callable

__all__ = ["REAPER", "Reaper"]


class Reaper:
    """Runs the ends of seats' closing, one after the other, in a thread of its own. At
    most :data:`BACKLOG` seats wait here: past that, closing waits (a table of bots that
    ignore their goodbye cannot pile up processes). At exit, every seat waiting is
    finished."""

    BACKLOG = 64

    def __init__(self) -> None:
        self._queue: deque[Callable[[], None]] = deque()
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)
        self._idle = threading.Condition(self._lock)
        self._busy = 0
        self._thread: threading.Thread | None = None

    def add(self, finish: Callable[[], None]) -> None:
        """Run ``finish`` (the end of a seat's closing) in the reaper's thread, or now
        when the backlog is full."""
        with self._lock:
            if len(self._queue) >= self.BACKLOG:
                full = True
            else:
                full = False
                self._queue.append(finish)
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name="dp-arena-reaper", daemon=True
                    )
                    self._thread.start()
                    atexit.register(self.flush)
                self._work.notify()
        if full:
            finish()

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._queue:
                    self._work.wait()
                finish = self._queue.popleft()
                self._busy += 1
            try:
                finish()
            except Exception:  # one seat's bad end must not stop the others'
                pass
            finally:
                with self._lock:
                    self._busy -= 1
                    if not self._queue and not self._busy:
                        self._idle.notify_all()

    def flush(self, timeout: float = 60.0) -> bool:
        """Wait until every seat handed over is closed; whether they all were."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._queue or self._busy:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._idle.wait(remaining)
        return True


REAPER = Reaper()
