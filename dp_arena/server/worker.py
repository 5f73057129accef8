"""The server's workers: each a daemon thread that looks for work (an upload to check, a
match to play), waits when there is none, and is told at once when some comes."""

from __future__ import annotations

import threading

__all__ = ["Worker"]


class Worker:
    """A thread running :meth:`_loop` from :meth:`start` until :meth:`stop`; :meth:`wake`
    ends its wait for work at once. A worker names its thread (``thread_name``) and how
    long :meth:`stop` waits for its loop to end (``stop_seconds``)."""

    thread_name = "dp-arena-worker"
    stop_seconds = 30.0

    def __init__(self) -> None:
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name=self.thread_name, daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self.request_stop()
        self.join()

    def request_stop(self) -> None:
        """Tell the loop to end (at once, without waiting for it)."""
        self._stop.set()
        self._wake.set()

    def join(self) -> None:
        """Wait for the loop to end, ``stop_seconds`` at most: a daemon thread still
        running then ends with the process (its work is done again at the next start)."""
        if self._thread is not None:
            self._thread.join(self.stop_seconds)

    def _idle(self) -> None:
        """Wait for work: until woken, or five seconds at the most."""
        self._wake.wait(5.0)
        self._wake.clear()

    def _loop(self) -> None:
        raise NotImplementedError
