"""Starting a sandboxed bot process and ending it: the one place a bot's sandbox is made.

:func:`spawn` starts the :class:`~dp_arena.sandbox.isolation.SandboxCommand` built for a
bot with a budget of its own (:mod:`dp_arena.sandbox.budget`). A two-line ``/bin/sh``
launcher first moves itself into the bot's cgroups, so that nothing of the bot ever
runs outside them, and opens the sandbox's syscall filter (when bubblewrap takes one) on
fd 3; then it execs the sandbox. The returned :class:`BotProcess` knows how to kill
everything of the bot (its process group, its uid's processes, its cgroups) and why its
budget killed it, and gives back what it held when the seat closes. One
:class:`Monitor` thread per dealer looks at every live bot's budget a few times a second
and kills a bot that is over it.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable

from dp_arena.sandbox.budget import INTERVAL, Budget, new_budget, proc_table
from dp_arena.sandbox.isolation import SECCOMP_FD, SandboxCommand, kill_uid
from dp_arena.sandbox.limits import Limits

__all__ = ["MONITOR", "BotProcess", "Monitor", "launcher_argv", "spawn"]


class Monitor:
    """A daemon thread that looks at every live budget each :data:`INTERVAL` seconds
    and kills a bot over its budget (one per dealer process; idle without bots)."""

    def __init__(self) -> None:
        self._watched: dict[int, tuple[Budget, Callable[[str], None]]] = {}
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None

    def watch(self, budget: Budget, on_over: Callable[[str], None]) -> None:
        """Look at ``budget`` until :meth:`unwatch`; ``on_over(verdict)`` kills the bot."""
        with self._lock:
            self._watched[id(budget)] = (budget, on_over)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="dp-arena-budget-monitor", daemon=True
                )
                self._thread.start()
            self._wake.notify()

    def unwatch(self, budget: Budget) -> None:
        with self._lock:
            self._watched.pop(id(budget), None)

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._watched:
                    self._wake.wait()
                watched = list(self._watched.values())
            table = proc_table() if any(b.kind == "watchdog" for b, _ in watched) else None
            for budget, on_over in watched:
                if budget.verdict is not None:
                    continue
                try:
                    verdict = budget.check(table)
                except Exception:  # a budget's bad moment must never stop the monitor
                    verdict = None
                if verdict is None:
                    continue
                with self._lock:  # a seat closed meanwhile: its pids may be reused
                    if id(budget) not in self._watched:
                        continue
                    budget.verdict = verdict
                    with contextlib.suppress(Exception):
                        on_over(verdict)
            time.sleep(INTERVAL)


MONITOR = Monitor()


def launcher_argv(command: SandboxCommand, procs_files: list[str]) -> list[str]:
    """``command.argv``, preceded when needed by the shell that joins the bot's cgroups
    and opens the syscall filter for bubblewrap."""
    steps = [f"echo $$ > {shlex.quote(path)}" for path in procs_files]
    opens = ""
    if command.seccomp_file is not None:
        opens = f" {SECCOMP_FD}< {shlex.quote(command.seccomp_file)}"
    if not steps and not opens:
        return list(command.argv)
    script = " && ".join([*steps, f'exec "$@"{opens}'])
    return ["/bin/sh", "-c", script, "dp-arena-launch", *command.argv]


class BotProcess:
    """A bot's process in its sandbox, with its budget."""

    def __init__(self, command: SandboxCommand, limits: Limits) -> None:
        self.command = command
        self.budget: Budget = new_budget(limits)
        try:
            self.process = subprocess.Popen(
                launcher_argv(command, self.budget.procs_files()),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=command.env,
                cwd=command.cwd,
                close_fds=True,
                start_new_session=True,
            )
        except OSError:
            self.budget.remove()
            raise
        self.budget.started(self.process.pid, command.uid)
        MONITOR.watch(self.budget, self._over_budget)

    @property
    def verdict(self) -> str | None:
        """Why the bot's budget killed it (memory, CPU), if it did; checked once more
        here, for a bot the kernel stopped before the monitor looked."""
        if self.budget.verdict is None:
            with contextlib.suppress(Exception):
                self.budget.verdict = self.budget.check()
        return self.budget.verdict

    def _over_budget(self, verdict: str) -> None:
        """Called by the monitor's thread: kill the bot; the seat's thread sees it end."""
        del verdict
        self.budget.kill()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)

    def kill(self) -> None:
        """SIGKILL every process of the bot and reap its first one."""
        process = self.process
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(10)
        self.budget.kill()
        if self.command.uid is not None:
            # Anything still running under the bot's own uid escaped the process group
            # (possible only without a PID namespace): kill it too.
            for _ in range(5):
                if kill_uid(self.command.uid) == 0:
                    break
                time.sleep(0.01)

    def release(self) -> None:
        """Give back the budget's groups and the sandbox's scratch folder (after
        :meth:`kill`)."""
        MONITOR.unwatch(self.budget)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self.budget.remove()
        if self.command.scratch:
            shutil.rmtree(self.command.scratch, ignore_errors=True)


def spawn(command: SandboxCommand, limits: Limits) -> BotProcess:
    """Start a bot in its sandbox with its budget (``OSError`` if it cannot start)."""
    return BotProcess(command, limits)
