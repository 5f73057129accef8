"""The uids bot processes run as when the dealer is root: each dealer process on a machine
claims a block of uids of its own, so that no two live bots share a uid, whichever events,
workers or servers deal at once.

A block is claimed by an exclusive ``flock`` on a lock file of its own in a directory
every dealer on the machine shares (``DP_ARENA_UID_LOCKS``, else ``/run/lock/dp-arena-uids``
where ``/run/lock`` exists, else ``dp-arena-uids`` in the temporary directory); the lock is
held as long as the process lives and the kernel lets it go when the process ends,
however it ends. A forked child claims a block of its own (a lock belongs to the
parent's open file). Within a block, a counter keeps the bots of one dealer apart and a
uid whose sweep is still to come is skipped. :func:`uid_processes` finds what runs
under a bot's uid, :func:`kill_uid` ends it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import tempfile
import threading
from pathlib import Path

from dp_arena.errors import RunError

__all__ = ["BLOCKS", "BLOCK_SIZE", "UID_BASE", "kill_uid", "next_uid", "sweeping", "uid_processes"]

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


def uid_processes(uid: int) -> list[int]:
    """Live (not zombie) processes whose real uid is ``uid``, found through ``/proc``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", "rb") as status:
                text = status.read().decode("ascii", "replace")
        except OSError:
            continue
        state = uid_line = ""
        # Lines end with "\n" only: splitlines() would also split the process's name
        # (the bot sets it) at \x1c-\x1e, which the kernel leaves as they are, so a name
        # such as "x\x1cUid:\t0" would pass for the uid line and hide the process.
        for line in text.split("\n"):
            if line.startswith("State:"):
                state = line.split()[1]
            elif line.startswith("Uid:"):
                uid_line = line.split()[1]
                break
        if uid_line == str(uid) and state not in ("Z", "X"):
            found.append(int(entry))
    return found


def kill_uid(uid: int) -> int:
    """SIGKILL every process running as ``uid`` (a bot's own uid); how many were found."""
    pids = uid_processes(uid)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return len(pids)
