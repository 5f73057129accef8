"""Starting a sandboxed bot process and ending it: the one place a bot's sandbox is made.

:func:`spawn` starts the :class:`~dp_arena.sandbox.confinement.isolation.SandboxCommand` built for a
bot with a budget of its own (:mod:`dp_arena.sandbox.confinement.budget`), in one of two ways:

- **exec'd**: a two-line ``/bin/sh`` launcher first moves itself into the bot's cgroups,
  so that nothing of the bot ever runs outside them, and opens the sandbox's syscall
  filter (when bubblewrap takes one) on fd 3; then it execs the sandbox;
- **forked** (a Python bot whose command carries a template plan): a warm template of the
  bot's sandbox forks the seat's processes, whose first the dealer moves into the bot's
  cgroups before anything else runs (:mod:`dp_arena.sandbox.dealer.template`). A few such seats
  are made ahead, while the table plays (:class:`Spares`): each is still made for one
  seat alone, and waits, before any bot code runs, for the dealer's hello.

The returned :class:`BotProcess` knows how to kill everything of the bot (its process
group or its seat's init, its uid's processes, its cgroups) and why its budget killed
it, and gives back what it held when the seat closes. One :class:`Monitor` thread per
dealer looks at every live bot's budget a few times a second, kills a bot that is over
it, and sweeps the uids of closed forked seats.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable

from dp_arena.sandbox.confinement.budget import (
    FORKED_TASKS,
    INTERVAL,
    Budget,
    budget_support,
    new_budget,
)
from dp_arena.sandbox.confinement.command import SandboxCommand, TemplatePlan, launcher_argv
from dp_arena.sandbox.confinement.isolation import exec_command, sandbox_command
from dp_arena.sandbox.confinement.processes import kill_uid, proc_table
from dp_arena.sandbox.confinement.uids import sweeping
from dp_arena.sandbox.dealer.forked import ForkedProcess
from dp_arena.sandbox.dealer.template import (
    Template,
    fork_seat,
    release_seat,
    template_processes,
    write_bytecode_once,
)
from dp_arena.sandbox.limits import Limits

__all__ = [
    "MONITOR",
    "SPARES",
    "BotProcess",
    "Monitor",
    "Spares",
    "kept_processes",
    "spawn",
]

# How long a closed forked seat's init may take to report its end before it is killed.
GONE_GRACE = 2.0


class Monitor:
    """A daemon thread that looks at every live budget each :data:`INTERVAL` seconds
    and kills a bot over its budget, and kills what is left under the uids of forked
    seats that closed (one per dealer process; idle without bots)."""

    def __init__(self) -> None:
        self._watched: dict[int, tuple[Budget, Callable[[str], None]]] = {}
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None

    def _ensure_thread(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="dp-arena-budget-monitor", daemon=True
            )
            self._thread.start()
        self._wake.notify()

    def watch(self, budget: Budget, on_over: Callable[[str], None]) -> None:
        """Look at ``budget`` until :meth:`unwatch`; ``on_over(verdict)`` kills the bot."""
        with self._lock:
            self._watched[id(budget)] = (budget, on_over)
            self._ensure_thread()

    def unwatch(self, budget: Budget) -> None:
        with self._lock:
            self._watched.pop(id(budget), None)

    def sweep_later(self, uid: int) -> None:
        """Kill whatever still runs under ``uid`` at the next look (a forked seat's, once
        its cgroups and its PID namespace have already taken everything down)."""
        with self._lock:
            sweeping.add(uid)
            self._ensure_thread()

    def sweep_now(self) -> None:
        """Sweep every uid waiting for it, at once (at exit, and in tests)."""
        with self._lock:
            uids = set(sweeping)
        if uids:
            self._sweep(uids, proc_table())

    def _sweep(self, uids: set[int], table: dict[int, tuple[int, int, str]]) -> None:
        found = [
            pid for pid, (_, uid, state) in table.items() if uid in uids and state not in ("Z", "X")
        ]
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if not found:  # a uid is given out again only once nothing runs under it
            with self._lock:
                sweeping.difference_update(uids)

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._watched and not sweeping:
                    self._wake.wait()
                watched = list(self._watched.values())
                uids = set(sweeping)
            table = proc_table() if uids or any(b.kind == "watchdog" for b, _ in watched) else None
            if uids and table is not None:
                self._sweep(uids, table)
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
atexit.register(MONITOR.sweep_now)  # registered first, so it runs after the others


class BotProcess:
    """A bot's process in its sandbox, with its budget: forked from a warm template of
    its sandbox when the command has one (:mod:`dp_arena.sandbox.dealer.template`), else exec'd."""

    def __init__(self, command: SandboxCommand, limits: Limits) -> None:
        self.command = command
        self.budget: Budget
        self.process: subprocess.Popen[bytes] | ForkedProcess
        self._template: Template | None = None
        if command.template is not None and command.uid is not None:
            self.budget = new_budget(limits, FORKED_TASKS)
            forked = fork_seat(command.template, command.uid, limits, self.budget.procs_files())
            if forked is not None:
                self.process, self._template = forked
                self.budget.started(self.process.pid, command.uid)
                MONITOR.watch(self.budget, self._over_budget)
                return
            self.budget.remove()  # an exec'd seat's sandbox has processes of its own
            self.command = command = exec_command(command, limits)
        write_bytecode_once()
        self.budget = new_budget(limits)
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
    def forked(self) -> bool:
        """Whether the process was forked from a template (its exit status is then the
        bot's own, never a launcher's ``128 + N`` for a signal)."""
        return isinstance(self.process, ForkedProcess)

    @property
    def setup_error(self) -> str | None:
        """Why a forked seat's set-up failed before any bot code ran, if it did."""
        return self.process.setup_error if isinstance(self.process, ForkedProcess) else None

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
        if isinstance(self.process, ForkedProcess):
            self.process.kill()
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)

    def kill(self) -> None:
        """SIGKILL every process of the bot and reap its first one."""
        process = self.process
        if isinstance(process, ForkedProcess):
            self._kill_forked(process)
            return
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

    def _kill_forked(self, process: ForkedProcess) -> None:
        """A bot that ended by itself is let finish: its init reports it, then ends, and
        the kernel lets the init end only once every process of its PID namespace is
        dead. One that did not is killed through its init's pidfd (the namespace goes
        with it)."""
        if process.poll() is None or not process.wait_gone(GONE_GRACE):
            process.kill()
            process.wait_gone(10)
        self.budget.kill()
        if self.command.uid is not None:
            if self.budget.kind == "watchdog":
                kill_uid(self.command.uid)
            # Its cgroups and PID namespace took everything down; the uid sweep stays as
            # a second wall, made by the monitor for many seats at once.
            MONITOR.sweep_later(self.command.uid)

    def release(self) -> None:
        """Give back the budget's groups and the sandbox's scratch folder (after
        :meth:`kill`)."""
        MONITOR.unwatch(self.budget)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self.budget.remove()
        if isinstance(self.process, ForkedProcess):
            self.process.release()
        if self._template is not None:
            release_seat(self._template)
            self._template = None
        if self.command.scratch:
            shutil.rmtree(self.command.scratch, ignore_errors=True)


class Spares:
    """Forked seats made ahead, per template plan and limits, by a thread of their own
    while the tables play, so that a table's seats are ready when it sits down.

    A spare is a seat like any other (its own processes, namespaces, uid, cgroups),
    made for one seat alone and handed out once; it waits for the dealer's hello before
    its runner loads the bot, so no bot code has run in it. How many are kept follows
    how many seats of the plan were wanted at once (at most :data:`MOST`)."""

    MOST = 6

    def __init__(self) -> None:
        self._ready: dict[_SpareKey, deque[BotProcess]] = {}
        self._wanted: dict[_SpareKey, int] = {}
        self._making: dict[_SpareKey, int] = {}
        self._allowed: set[_SpareKey] = set()
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self._closed = False

    def allow(self, plan: TemplatePlan, limits: Limits) -> None:
        """Keep spares of ``plan`` and ``limits`` from now on (a bot this process will
        seat again and again: see :func:`dp_arena.sandbox.prepare`)."""
        with self._lock:
            self._allowed.add(_key(plan, limits))

    def take(self, plan: TemplatePlan, limits: Limits) -> BotProcess | None:
        """A ready spare of ``plan`` and ``limits``, if one is there; either way, more
        are made for the next seats, if spares of them are kept."""
        key = _key(plan, limits)
        found = None
        with self._lock:
            if key not in self._allowed:
                return None
            ready = self._ready.setdefault(key, deque())
            while ready and found is None:
                spare = ready.popleft()
                if spare.process.poll() is None:
                    found = spare
                else:
                    _discard(spare)
            if found is None:  # a miss: keep one more ready from now on
                self._wanted[key] = min(self.MOST, self._wanted.get(key, 0) + 1)
            self._refill(key)
        return found

    def _refill(self, key: _SpareKey) -> None:
        if self._closed:
            return
        missing = self._wanted.get(key, 0) - len(self._ready[key]) - self._making.get(key, 0)
        if missing <= 0:
            return
        self._making[key] = self._making.get(key, 0) + missing
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="dp-arena-spares", daemon=True)
            self._thread.start()
            atexit.register(self.close)
        self._work.notify()

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._closed and not any(self._making.values()):
                    self._work.wait()
                if self._closed:
                    return
                key = next(key for key, count in self._making.items() if count)
            plan, limits, _ = key
            spare: BotProcess | None = None
            with contextlib.suppress(OSError):
                spare = BotProcess(_command(plan, limits), limits)
                if not spare.forked:  # the template failed: seats are exec'd, not kept
                    _discard(spare)
                    spare = None
            with self._lock:
                self._making[key] = max(0, self._making.get(key, 0) - 1)
                if spare is None:
                    self._wanted[key] = 0
                    self._making[key] = 0
                elif self._closed or key not in self._allowed:
                    _discard(spare)
                else:
                    self._ready.setdefault(key, deque()).append(spare)

    def clear(self) -> None:
        """Kill every spare and keep none until :meth:`allow` is called again (a dealer
        that is done with its bots: a test, between events)."""
        with self._lock:
            spares = [spare for ready in self._ready.values() for spare in ready]
            self._ready.clear()
            self._wanted.clear()
            self._making.clear()
            self._allowed.clear()
        for spare in spares:
            _discard(spare)

    def close(self) -> None:
        """Kill every spare (at exit)."""
        with self._lock:
            self._closed = True
            spares = [spare for ready in self._ready.values() for spare in ready]
            self._ready.clear()
            self._work.notify_all()
        for spare in spares:
            _discard(spare)


def kept_processes() -> set[int]:
    """The processes this dealer keeps between seats on purpose: its templates and the
    spare seats made ahead (each spare's whole tree). Anything else below the dealer is
    a live seat, or one left behind."""
    table = proc_table()
    kept = template_processes(table)
    with SPARES._lock:
        roots = [spare.process.pid for ready in SPARES._ready.values() for spare in ready]
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in table.items():
        children.setdefault(parent, []).append(pid)
    while roots:
        pid = roots.pop()
        kept.add(pid)
        roots.extend(children.get(pid, []))
    return kept


# Spares of a plan and limits, under the budget this machine gives (tests change it).
_SpareKey = tuple[TemplatePlan, Limits, str]


def _key(plan: TemplatePlan, limits: Limits) -> _SpareKey:
    return (plan, limits, budget_support().kind)


def _command(plan: TemplatePlan, limits: Limits) -> SandboxCommand:
    """The command of a new seat of ``plan`` (a uid of its own)."""
    argv = (sys.executable, "-I", "-m", "dp_arena.sandbox.bot.runner", *plan.runner_args)
    return sandbox_command(
        argv,
        bot_dir=plan.bot_dir,
        runtime=plan.runtime,
        limits=limits,
        own=plan.own,
        runner_args=plan.runner_args,
    )


def _discard(spare: BotProcess) -> None:
    with contextlib.suppress(Exception):
        spare.kill()
        spare.release()


SPARES = Spares()


def spawn(command: SandboxCommand, limits: Limits) -> BotProcess:
    """Start a bot in its sandbox with its budget (``OSError`` if it cannot start): a
    spare made ahead for it if there is one (whose command, and uid, are its own)."""
    if command.template is not None:
        spare = SPARES.take(command.template, limits)
        if spare is not None:
            if command.scratch:
                shutil.rmtree(command.scratch, ignore_errors=True)
            return spare
    return BotProcess(command, limits)
