"""What ``/proc`` says of the host's processes: each one's parent, real uid and state
(:func:`proc_table`), the processes of a bot's uid (:func:`uid_processes`, and
:func:`kill_uid` to end them), a process's CPU time and memory."""

from __future__ import annotations

import contextlib
import os
import signal

__all__ = ["cpu_seconds", "kill_uid", "memory_bytes", "proc_table", "uid_processes"]


def proc_table() -> dict[int, tuple[int, int, str]]:
    """pid -> (parent pid, real uid, state) of every process, from ``/proc``."""
    table: dict[int, tuple[int, int, str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", "rb") as status:
                text = status.read().decode("ascii", "replace")
        except OSError:
            continue
        state, ppid, uid = "", 0, -1
        # Lines end with "\n" only: splitlines() would also split the process's name
        # (the bot sets it) at \x1c-\x1e, which the kernel leaves as they are, so a name
        # such as "x\x1cUid:\t0" would pass for the uid line and hide the process.
        for line in text.split("\n"):
            if line.startswith("State:"):
                state = line.split()[1]
            elif line.startswith("PPid:"):
                ppid = int(line.split()[1])
            elif line.startswith("Uid:"):
                uid = int(line.split()[1])
                break
        table[int(entry)] = (ppid, uid, state)
    return table


def cpu_seconds(pid: int) -> float:
    """A process's CPU time, its own and that of its children it waited for."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    ticks = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def memory_bytes(pid: int) -> int:
    """A process's proportional set size (its share of pages it shares), else its RSS."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            for line in rollup.read().splitlines():
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def uid_processes(uid: int) -> list[int]:
    """Live (not zombie) processes whose real uid is ``uid``."""
    return [
        pid
        for pid, (_, owner, state) in proc_table().items()
        if owner == uid and state not in ("Z", "X")
    ]


def kill_uid(uid: int) -> int:
    """SIGKILL every process running as ``uid`` (a bot's own uid); how many were found."""
    pids = uid_processes(uid)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return len(pids)
