"""One process at a time runs a run directory: an advisory lock on ``RUN_DIR/run.lock``.

The lock is ``flock`` on the file, held from the moment a run or a resume opens the
directory's checkpoint store until it closes it. The operating system releases it when
the process ends, however it ends, so ``kill -9`` never leaves a stale lock behind and a
resume after a crash just works. The file says who holds the lock (process id, host and
since when), for the message of a second run or resume, which is refused::

    runs/cup is being run by process 4242 on host-1 since 2026-11-30 12:00:03; wait for
    it to finish or stop it, then `dp-arena resume runs/cup`

The file stays in the directory when the lock is released (removing it would let two
processes lock two different files of the same name).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import time
from pathlib import Path

from dp_arena.errors import RunError
from dp_arena.rundir.layout import RunDir

__all__ = ["LOCK_FILE", "RunLock", "refuse_if_running"]

LOCK_FILE = RunDir.LOCK


class RunLock:
    """The held lock of one run directory; :meth:`release` it (or let the process end)."""

    def __init__(self, run_dir: Path, descriptor: int) -> None:
        self.run_dir = run_dir
        self._descriptor: int | None = descriptor

    @classmethod
    def acquire(cls, run_dir: Path) -> RunLock:
        """Lock ``run_dir`` (which must exist) for this process; :class:`RunError` naming
        the holder when another process has it."""
        path = run_dir / LOCK_FILE
        try:
            # Not inherited by the processes this one starts (bots, Ray): the lock must
            # end with this process.
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as error:
            raise RunError(f"cannot lock {path}: {error.strerror or error}") from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(descriptor)
            os.close(descriptor)
            raise _busy(run_dir, holder) from None
        except OSError as error:
            os.close(descriptor)
            raise RunError(f"cannot lock {path}: {error.strerror or error}") from None
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{os.getpid()} {socket.gethostname()} {since}\n".encode(), 0)
        return cls(run_dir, descriptor)

    @property
    def held(self) -> bool:
        return self._descriptor is not None

    def release(self) -> None:
        """Give the lock up (again: nothing)."""
        descriptor, self._descriptor = self._descriptor, None
        if descriptor is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(descriptor, 0)
            os.close(descriptor)  # closing the file releases the lock

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def refuse_if_running(run_dir: Path) -> None:
    """:class:`RunError` naming the holder when a process holds ``run_dir``'s lock; checks
    without taking it (a directory or lock file that does not exist is not being run)."""
    try:
        descriptor = os.open(run_dir / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        raise _busy(run_dir, _holder(descriptor)) from None
    except OSError:
        return
    finally:
        os.close(descriptor)


def _holder(descriptor: int) -> str:
    try:
        words = os.pread(descriptor, 200, 0).decode("utf-8", "replace").split()
    except OSError:
        words = []
    if len(words) >= 4 and words[0].isdigit():
        return f"process {words[0]} on {words[1]} since {' '.join(words[2:4])}"
    return "another process"


def _busy(run_dir: Path, holder: str) -> RunError:
    return RunError(
        f"{run_dir} is being run by {holder}; wait for it to finish or stop it,"
        f" then `dp-arena resume {run_dir}`"
    )
