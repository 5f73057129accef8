"""Keeping every page a sandboxed bot may read in this dealer's memory, so that whether a
page is cached tells one sandbox nothing of another (see
:mod:`~dp_arena.sandbox.confinement.runtime`, whose views it holds)."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from dp_arena.sandbox.confinement.runtime import RuntimeView

__all__ = ["WALK_AGAIN", "Residency", "hold", "keep_resident", "resident"]


@dataclass(frozen=True, slots=True)
class Residency:
    """How the files bots may read are kept in memory in this dealer: ``locked`` (held
    with ``mlock``: nothing can push them out), or only read in (the dealer may not
    lock so much memory: ``detail`` says why), and how much."""

    locked: bool
    files: int
    bytes: int
    detail: str = ""

    def describe(self) -> str:
        size = f"{self.files} files, {self.bytes / 2**20:.0f} MiB"
        if self.locked:
            return f"yes (locked in memory by the dealer: {size})"
        return f"read in, not locked ({self.detail}): {size}"


class _Held:
    """The files this process keeps in memory: ``(device, inode) -> (address, length)``
    of each mapping, whether every one is locked, and why not."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.mappings: dict[tuple[int, int], tuple[int, int]] = {}
        self.locked = True
        self.detail = ""
        self.bytes = 0


_HELD = _Held()


def keep_resident(paths: Iterable[str]) -> Residency:
    """Map every readable regular file of ``paths`` into this process and lock it in
    memory (as root), or at least read it in: from now until this process ends, each of
    its pages is in the page cache, counted where this process is counted. Files already
    held are skipped, so calling this for every seat costs a walk, not a read."""
    libc = _libc()
    with _HELD.lock:
        for path in paths:
            with contextlib.suppress(OSError):
                _hold(libc, path)
    return resident()


def resident() -> Residency:
    """What :func:`keep_resident` holds so far in this process."""
    with _HELD.lock:
        return Residency(_HELD.locked, len(_HELD.mappings), _HELD.bytes, _HELD.detail)


PROT_READ, MAP_SHARED, MAP_POPULATE = 1, 1, 0x8000
MAP_FAILED = ctypes.c_void_p(-1).value


def _hold(libc: ctypes.CDLL, path: str) -> None:
    status = os.stat(path)
    key = (status.st_dev, status.st_ino)
    # A bot reads a file only through the permissions of others (its uid is its own).
    if key in _HELD.mappings or not status.st_mode & 0o004 or status.st_size == 0:
        return
    descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    try:
        address = libc.mmap(
            None, status.st_size, PROT_READ, MAP_SHARED | MAP_POPULATE, descriptor, 0
        )
    finally:
        os.close(descriptor)
    if address in (None, MAP_FAILED):
        raise OSError(ctypes.get_errno(), f"mmap {path}")
    if _HELD.locked and libc.mlock(ctypes.c_void_p(address), status.st_size) != 0:
        _HELD.locked = False
        _HELD.detail = f"mlock: {os.strerror(ctypes.get_errno())}; RLIMIT_MEMLOCK too small"
    _HELD.mappings[key] = (address, status.st_size)
    _HELD.bytes += status.st_size


@functools.cache
def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_long,
    ]
    libc.mlock.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    return libc


# Views and own files this dealer keeps in memory, and when each was last walked.
_held: dict[object, float] = {}
# A view is walked again (for files made since: a module's compiled code, say) at most
# this often; a walk of a Python bot's view takes about 40 ms once its files are held.
WALK_AGAIN = 10.0


def hold(view: RuntimeView, own: Path | None = None) -> Residency:
    """Keep every page of ``view`` (and of ``own``, the source of each seat's private
    copy) in this dealer's memory from now on (:func:`keep_resident`); a view or folder
    is walked again for new files at most every :data:`WALK_AGAIN` seconds."""
    now = time.monotonic()
    for key, files in ((view, view.regular_files), (own, lambda: _own_files(own))):
        if key is not None and now - _held.get(key, -WALK_AGAIN) >= WALK_AGAIN:
            keep_resident(files())
            _held[key] = now
    return resident()


def _own_files(own: Path | None) -> list[str]:
    if own is None:
        return []
    if own.is_file():
        return [str(own)]
    return [
        os.path.join(folder, name)
        for folder, _, names in os.walk(own)
        for name in names
        if os.path.isfile(os.path.join(folder, name))
    ]
