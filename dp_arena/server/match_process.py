"""A ladder match played in a process of its own, which the ladder can always stop.

The ladder's thread hands the match's table units to ``python -m
dp_arena.server.match_process`` on its standard input and reads each table's result back,
one JSON line per table, waiting with :func:`select.poll` (any descriptor number) a fifth
of a second at a time. It never waits without a deadline: the match's ``deadline``
(seconds of wall clock for the whole match), and the ladder's stop event, each end the
wait at once by killing the process (its sandboxed bots die with it). The process plays
the units as a run's serial executor does (every bot sandboxed, the built-ins of the
house in-process); its dealing and bots take nothing from the server's own process and
its interpreter lock, which serves pages meanwhile.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from dp_arena.results import TableSessionResult
from dp_arena.units import TableUnit

__all__ = ["MatchCut", "play_match_process"]

POLL_MS = 200
READ_BYTES = 1 << 16


class MatchCut(Exception):
    """The match did not end: ``reason`` is ``stopped`` (the ladder was told to stop),
    ``deadline`` (it ran past its deadline) or ``failed`` (the process ended without
    its results; ``message`` says how)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def play_match_process(
    units: Sequence[TableUnit],
    *,
    deadline: float,
    stop: threading.Event,
    log: Path | None = None,
) -> list[TableSessionResult]:
    """Each unit's result, played in a child process (see the module); :class:`MatchCut`
    when ``stop`` is set or ``deadline`` seconds pass first."""
    request = json.dumps({"units": [unit.to_json() for unit in units]}).encode()
    ends = time.monotonic() + deadline
    with contextlib.ExitStack() as stack:
        errors = stack.enter_context(open(log, "ab")) if log is not None else subprocess.DEVNULL
        process = subprocess.Popen(
            [sys.executable, "-m", "dp_arena.server.match_process"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            start_new_session=True,  # its own group: killed whole
        )
        stack.callback(_kill, process)
        assert process.stdin is not None and process.stdout is not None
        # The request is a few kilobytes, less than a pipe holds: written at once.
        process.stdin.write(request)
        process.stdin.close()
        output = process.stdout.fileno()
        os.set_blocking(output, False)
        waiter = select.poll()
        waiter.register(output, select.POLLIN | select.POLLHUP | select.POLLERR)
        buffer = bytearray()
        results: list[TableSessionResult] = []
        while True:
            if stop.is_set():
                raise MatchCut("stopped", "the ladder was stopped while the match played")
            if time.monotonic() > ends:
                raise MatchCut("deadline", f"the match ran past its deadline of {deadline:.0f} s")
            if not waiter.poll(POLL_MS):
                continue
            try:
                chunk = os.read(output, READ_BYTES)
            except BlockingIOError:
                continue
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, _, rest = bytes(buffer).partition(b"\n")
                buffer = bytearray(rest)
                results.append(TableSessionResult.from_json(json.loads(line)))
        try:
            status = process.wait(timeout=30)
        except subprocess.TimeoutExpired:  # its output ended, its bots hold it up
            _kill(process)
            status = process.returncode if len(results) != len(units) else 0
        if status != 0 or len(results) != len(units):
            raise MatchCut(
                "failed",
                f"the match's process ended (status {status}) after {len(results)} of"
                f" {len(units)} tables",
            )
        return results


def _kill(process: subprocess.Popen[bytes]) -> None:
    """The process and its group gone (nothing if it has ended)."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    if process.stdout is not None:
        process.stdout.close()


def main() -> int:
    """Read the units from standard input, write each table's result as a JSON line."""
    from dp_arena.runner.worker import play_units

    units = [TableUnit.from_json(unit) for unit in json.load(sys.stdin)["units"]]
    for data, _ in play_units(units, histories=False):
        sys.stdout.write(json.dumps(data, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
