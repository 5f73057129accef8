"""The uids bot processes run as when the dealer is root: each dealer process on a machine
claims a block of uids of its own, so that no two live bots share a uid, whichever events,
workers or servers deal at once.

A block is claimed by an exclusive ``flock`` on a lock file of its own in a directory
every dealer on the machine shares (``DP_ARENA_UID_LOCKS``, else ``/run/lock/dp-arena-uids``
where ``/run/lock`` exists, else ``dp-arena-uids`` in the temporary directory); the lock is
held as long as the process lives and the kernel lets it go when the process ends,
however it ends. A forked child claims a block of its own (a lock belongs to the
parent's open file). Within a block, a counter keeps the bots of one dealer apart and a
uid whose sweep is still to come is skipped.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import threading
from pathlib import Path

from dp_arena.errors import RunError

__all__ = ["BLOCKS", "BLOCK_SIZE", "UID_BASE", "next_uid", "sweeping"]

# Uids handed to bot processes: far above any real account.
UID_BASE = 2_000_000
BLOCK_SIZE = 4096
BLOCKS = 1024  # dealer processes that can hand out uids at once on one machine

# Uids of closed seats whose sweep is still to come (see spawn.Monitor): not given out.
sweeping: set[int] = set()

_lock = threading.Lock()
_counter = 0
_claim: tuple[int, int, int] | None = None  # (pid, block, lock file descriptor)


def lock_dir() -> Path:
    """Where the machine's dealers keep their blocks' lock files."""
    configured = os.environ.get("DP_ARENA_UID_LOCKS")
    if configured:
        return Path(configured)
    if os.access("/run/lock", os.W_OK):
        return Path("/run/lock/dp-arena-uids")
    return Path(tempfile.gettempdir()) / "dp-arena-uids"


def _claim_block() -> int:
    """A block no other live process holds, claimed for this process's lifetime."""
    global _claim, _counter
    pid = os.getpid()
    if _claim is not None:
        if _claim[0] == pid:
            return _claim[1]
        os.close(_claim[2])  # a forked child's copy of its parent's lock file
    folder = lock_dir()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise RunError(f"{folder}: cannot keep the bots' uid locks: {error.strerror}") from None
    start = pid % BLOCKS
    for step in range(BLOCKS):
        block = (start + step) % BLOCKS
        path = folder / f"block-{block}"
        try:
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as error:
            raise RunError(f"{path}: cannot claim bot uids: {error.strerror}") from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            continue
        _claim, _counter = (pid, block, descriptor), 0
        return block
    raise RunError(
        f"{folder}: every one of the {BLOCKS} blocks of bot uids is held by a live dealer"
    )


def next_uid() -> int:
    """A uid for one bot process, distinct from every other live bot's on this machine."""
    global _counter
    with _lock:
        block = _claim_block()
        while True:
            _counter += 1
            uid = UID_BASE + block * BLOCK_SIZE + _counter % BLOCK_SIZE
            if uid not in sweeping:
                return uid
