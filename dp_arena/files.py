"""Writing files so that readers never see half of one: :func:`write_atomic`, and a
:class:`BackgroundWriter` that does it in a thread of its own.

A leaf below every part of the package: the event driver, the runner, the published
leaderboards and the commands all write their files this way.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import queue
import threading
from collections.abc import Iterable
from pathlib import Path

__all__ = ["BackgroundWriter", "write_atomic"]


def write_atomic(
    path: Path, content: str | bytes | Iterable[str] | Iterable[bytes], *, durable: bool = False
) -> None:
    """Write ``content`` to ``path`` so that readers see the old file or the new, never
    half: text (as UTF-8) or bytes, or either in pieces, each written as it comes (a
    long file need never be whole in memory). ``durable``: on the disk before it takes
    the old one's place, for a file that a database row about to be committed names."""
    handle, temporary = _temporary_beside(path)
    try:
        with os.fdopen(handle, "wb") as file:
            for piece in [content] if isinstance(content, (str, bytes)) else content:
                file.write(piece.encode("utf-8") if isinstance(piece, str) else piece)
            if durable:
                file.flush()
                os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# Temporary names are unique to this process and, within it, to each file it writes; an
# event writes a hand history a table-session, so this is made for speed: one open in a
# folder that exists (``tempfile.mkstemp`` and ``Path.mkdir`` cost several times more).
_written = itertools.count()
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def _temporary_beside(path: Path) -> tuple[int, str]:
    """An open, new, owner-only file in ``path``'s folder (made if missing), and its name."""
    folder = os.path.dirname(path) or "."
    for _ in range(100):
        temporary = os.path.join(folder, f".{path.name}.{os.getpid()}-{next(_written)}.tmp")
        try:
            return os.open(temporary, _FLAGS, 0o600), temporary
        except FileNotFoundError:
            os.makedirs(folder, exist_ok=True)
        except FileExistsError:  # left by a process of the same number: take the next
            pass
    raise FileExistsError(f"no free temporary name beside {path}")


class BackgroundWriter:
    """Writes files (:func:`write_atomic`) in a thread of its own, so that the caller goes
    on while the file system creates them (hand histories: one file per table-session);
    :meth:`flush` waits for every file handed over, and raises the first write's error,
    if any. Each file's SHA-256 is taken as it is written (:attr:`sha256`, by path), in
    that thread too: hashing lets go of the interpreter's lock, so the caller pays nothing
    for it."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[Path, str] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._pending = 0
        self._done = threading.Condition()
        self.sha256: dict[Path, str] = {}  # hex, of every file written

    def write(self, path: Path, text: str) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="dp-arena-writer", daemon=True)
            self._thread.start()
        with self._done:
            self._pending += 1
        self._queue.put((path, text))

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                if self._error is None:
                    path, text = item
                    data = text.encode("utf-8")
                    self.sha256[path] = hashlib.sha256(data).hexdigest()
                    write_atomic(path, data)
            except (OSError, ValueError) as error:  # told to the caller at the next flush
                self._error = error
            with self._done:
                self._pending -= 1
                self._done.notify_all()

    def flush(self) -> None:
        with self._done:
            self._done.wait_for(lambda: self._pending == 0)
        if self._error is not None:
            raise self._error

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
