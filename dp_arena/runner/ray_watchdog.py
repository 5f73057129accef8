"""The embedded Ray dies with its driver: a watchdog process that kills what is left of
an embedded Ray instance once the ``dp-arena`` process that started it is gone.

Ray shares the fate of the processes a driver starts itself (the GCS server, the raylet,
the monitors: Linux's parent-death signal, ``PR_SET_PDEATHSIG``), and its workers leave
within a few seconds of the raylet. But the raylet's own children, the dashboard agent
and the runtime-env agent, first try to report the raylet's death to the GCS, which
died with it, and wait a minute for an answer before they exit. Ray has no option to
shorten that wait, so after a ``kill -9`` of the driver two agents lived on for a
minute with their memory.

The watchdog closes that gap. The embedded Ray gets a private temporary folder of its
own (:func:`new_instance_folder`; Ray's sessions, sockets and logs go there), and every
process of the instance holds files open in it: its logs. The driver starts the
watchdog before Ray and keeps the write end of a pipe to its stdin; it never writes to
it. When the driver exits, by any means, ``SIGKILL`` included, the kernel closes the
pipe, the watchdog reads end-of-file and kills every process with a file open in the
instance's folder, sweeping until it finds none twice in a row. (Not by a name or an
environment variable: Ray's workers and agents rewrite their command lines, and with
them the start of their environment.) The watchdog runs in a session of its own, so
Ctrl-C in the terminal does not reach it before the driver has cleaned up, and uses the
standard library only: it is started as a script, without importing ``dp_arena``.

It needs Linux's ``/proc``; elsewhere :func:`start_watchdog` returns ``None`` and Ray's
own fate sharing is all there is.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["Watchdog", "new_instance_folder", "processes_using", "start_watchdog", "sweep"]

_PROC = Path("/proc")
# Sweeps stop after two empty ones in a row, or at this deadline.
_SWEEP_SECONDS = 20.0
_SWEEP_PAUSE = 0.1


def new_instance_folder() -> Path:
    """A new private folder for one embedded Ray instance. Short: Ray's socket paths
    inside it must fit in 107 bytes."""
    return Path(tempfile.mkdtemp(prefix="dp-arena-ray-"))


def _uses(pid: str, folder: str) -> bool:
    """Whether process ``pid`` has a file open under ``folder`` (``folder`` ends in /)."""
    try:
        descriptors = list((_PROC / pid / "fd").iterdir())
    except OSError:  # gone, or not ours to look at
        return False
    for descriptor in descriptors:
        try:
            if os.readlink(descriptor).startswith(folder):
                return True
        except OSError:
            continue
    return False


def processes_using(folder: Path, *, excluding: tuple[int, ...] = ()) -> list[int]:
    """Process ids of the live processes with a file open under ``folder`` (of those this
    user may look at), but ``excluding``."""
    prefix = str(folder.resolve()) + os.sep
    return [
        int(entry.name)
        for entry in _PROC.iterdir()
        if entry.name.isdigit() and int(entry.name) not in excluding and _uses(entry.name, prefix)
    ]


class Watchdog:
    """The driver's side: the watchdog process and the pipe that keeps it waiting."""

    def __init__(self, process: subprocess.Popen[bytes], folder: Path) -> None:
        self.process = process
        self.folder = folder

    def close(self, timeout: float = _SWEEP_SECONDS + 5) -> None:
        """Let it sweep now (the instance was shut down: it finds leftovers at most) and
        wait for it to finish."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_watchdog(folder: Path) -> Watchdog | None:
    """Start the watchdog of the instance in ``folder`` (``None`` without ``/proc``)."""
    if not sys.platform.startswith("linux") or not (_PROC / "self" / "fd").is_dir():
        return None
    process = subprocess.Popen(
        [sys.executable, "-I", "-S", str(Path(__file__).resolve()), str(folder), str(os.getpid())],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
    return Watchdog(process, folder)


# -- the watchdog process ------------------------------------------------------------


def _kill(pid: int, folder: Path) -> None:
    """SIGKILL ``pid`` if it still uses ``folder``. Through a pidfd where Linux has them:
    the process is held while its files are looked at, so a recycled pid is never hit."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        return
    try:
        uses = _uses(str(pid), str(folder.resolve()) + os.sep)
        # A pidfd turns readable when its process has exited: still alive after the
        # look, the files seen were that process's.
        exited = select.poll()  # poll, not select: no descriptor is out of its range
        exited.register(pidfd, select.POLLIN)
        if uses and not exited.poll(0):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(pidfd)


def sweep(folder: Path, *, excluding: tuple[int, ...] = (), seconds: float = _SWEEP_SECONDS) -> int:
    """Kill every process using ``folder`` (but ``excluding``) until two sweeps in a row
    find none (a raylet may start a worker while it dies); the number of kills sent."""
    deadline = time.monotonic() + seconds
    kills = empty = 0
    while empty < 2 and time.monotonic() < deadline:
        found = processes_using(folder, excluding=excluding)
        for pid in found:
            _kill(pid, folder)
        kills += len(found)
        empty = 0 if found else empty + 1
        time.sleep(_SWEEP_PAUSE)
    return kills


def main(argv: list[str]) -> int:
    folder, driver = Path(argv[1]), int(argv[2])
    # The driver never writes: this returns at end-of-file, when the driver has exited
    # or closed the pipe after shutting Ray down (then the driver, still alive and
    # perhaps still holding a log file of the instance, must not be hit).
    with contextlib.suppress(OSError):
        while os.read(0, 4096):
            pass
    sweep(folder, excluding=(os.getpid(), driver))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
