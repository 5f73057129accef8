"""Budgets per bot: memory, processes and CPU counted over the bot's whole process tree.

``setrlimit`` limits are per process: three forked children each get the full address
space. So each bot process also gets a budget for its whole tree, the best of:

``cgroup2``
    A cgroup v2 of its own (``memory.max``, ``memory.swap.max = 0``, ``pids.max``); its
    CPU time is read from ``cpu.stat``.
``cgroup1``
    Cgroup v1 groups of its own in the ``memory`` and ``pids`` hierarchies
    (``memory.limit_in_bytes``, ``memory.memsw.limit_in_bytes``, ``pids.max``) and in
    ``cpuacct`` where it is mounted (its CPU time; otherwise summed over the group's
    processes).
``watchdog``
    No usable cgroups (not root, a read-only ``/sys/fs/cgroup``): the dealer sums the
    tree's memory (proportional set size) and CPU time from ``/proc`` and kills the bot
    when a sum is over. A tree can overshoot between two looks, so this is weaker: the
    per-process ``setrlimit`` limits stay as the hard walls.

``DP_ARENA_BUDGET=cgroup2|cgroup1|watchdog`` forces one. With a cgroup the kernel stops
the tree at its memory and process budgets (the OOM killer takes a process of the bot,
``fork`` fails); the dealer's monitor (:mod:`dp_arena.sandbox.dealer.spawn`) looks at every
live budget a few times a second and kills a bot whose tree was OOM-killed or is over
its CPU seconds, so the
seat reports a ``CRASH`` saying which budget was exceeded. Cgroups are made under
``dp-arena/`` at the root of each hierarchy (as the dealer sees it), named after the
dealer's pid, removed when the seat closes; those of dealers that died are removed
when the next dealer makes its first.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

from dp_arena.sandbox.confinement.mounts import pid_alive
from dp_arena.sandbox.confinement.processes import cpu_seconds, memory_bytes, proc_table
from dp_arena.sandbox.limits import Limits

__all__ = ["BUDGET_KINDS", "Budget", "BudgetSupport", "budget_support", "new_budget"]

BUDGET_KINDS = ("cgroup2", "cgroup1", "watchdog")
BASE = "dp-arena"
# The sandbox's own processes besides the bot, allowed above `processes`: bubblewrap's
# two for an exec'd seat, the init alone for one forked from a template.
LAUNCHER_TASKS = 2
FORKED_TASKS = 1
# How often the monitor looks at each live budget.
INTERVAL = 0.2

_counter_lock = threading.Lock()
_counter = 0


@dataclass(frozen=True, slots=True)
class BudgetSupport:
    """Which budget this machine gives a bot, and where its cgroups live."""

    kind: str
    # cgroup1: controller -> its hierarchy's base folder; cgroup2: {"": base folder}
    bases: tuple[tuple[str, str], ...] = ()
    problem: str | None = None  # why no cgroup could be used (for the isolation summary)

    def describe(self) -> str:
        if self.kind == "cgroup2":
            return "cgroup2 (a cgroup v2 of its own: memory, pids; CPU time from cpu.stat)"
        if self.kind == "cgroup1":
            controllers = ", ".join(name for name, _ in self.bases)
            return f"cgroup1 (cgroup v1 groups of its own: {controllers})"
        reason = f"; {self.problem}" if self.problem else ""
        return (
            f"watchdog (the dealer sums the tree's memory and CPU from /proc every"
            f" {INTERVAL:g} s and kills it when over: weaker than a cgroup{reason})"
        )


def _cgroup_mounts() -> tuple[str | None, dict[str, str]]:
    """The cgroup2 mount point and the cgroup v1 mount point of each controller."""
    unified = None
    controllers: dict[str, str] = {}
    try:
        with open("/proc/self/mounts", encoding="utf-8") as mounts:
            lines = mounts.read().splitlines()
    except OSError:
        return None, {}
    for line in lines:
        fields = line.split()
        if len(fields) < 4:
            continue
        point = fields[1].replace("\\040", " ")
        if fields[2] == "cgroup2" and unified is None:
            unified = point
        elif fields[2] == "cgroup":
            for option in fields[3].split(","):
                if option in ("memory", "pids", "cpuacct"):
                    controllers.setdefault(option, point)
    return unified, controllers


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(text)


def _read(path: str) -> str:
    with open(path, encoding="ascii") as handle:
        return handle.read()


def _probe_cgroup2(mount: str) -> str:
    """The base folder for bots' cgroups under a cgroup2 mount; raises OSError why not."""
    available = _read(os.path.join(mount, "cgroup.controllers")).split()
    missing = [name for name in ("memory", "pids") if name not in available]
    if missing:
        raise OSError(f"cgroup2 at {mount} lacks the {' and '.join(missing)} controller")
    base = os.path.join(mount, BASE)
    _write(os.path.join(mount, "cgroup.subtree_control"), "+memory +pids")
    os.makedirs(base, exist_ok=True)
    _write(os.path.join(base, "cgroup.subtree_control"), "+memory +pids")
    _try_group({"": base}, "cgroup2")
    return base


def _probe_cgroup1(controllers: dict[str, str]) -> dict[str, str]:
    missing = [name for name in ("memory", "pids") if name not in controllers]
    if missing:
        raise OSError(f"no cgroup v1 {' or '.join(missing)} hierarchy is mounted")
    bases: dict[str, str] = {}
    for name in ("memory", "pids", "cpuacct"):
        if name not in controllers:
            continue
        base = os.path.join(controllers[name], BASE)
        try:
            os.makedirs(base, exist_ok=True)
        except OSError:
            if name == "cpuacct":  # optional: CPU time is then summed from /proc
                continue
            raise
        bases[name] = base
    _try_group(bases, "cgroup1")
    return bases


def _try_group(bases: dict[str, str], kind: str) -> None:
    """Make, limit, join (with a throwaway shell) and remove one group: OSError if not."""
    budget = _CgroupBudget(kind, bases, Limits(), f"{os.getpid()}-probe")
    try:
        joins = " && ".join(f"echo $$ > {path}" for path in budget.procs_files())
        subprocess.run(["/bin/sh", "-c", joins], check=True, capture_output=True, timeout=30)
    except (subprocess.SubprocessError, OSError) as error:
        raise OSError(f"cannot move a process into a {kind} group: {error}") from None
    finally:
        budget.remove()


@functools.cache
def budget_support() -> BudgetSupport:
    """The best budget that works here (probed once per dealer process)."""
    forced = os.environ.get("DP_ARENA_BUDGET", "").strip().lower()
    if forced and forced not in BUDGET_KINDS:
        raise ValueError(
            f"DP_ARENA_BUDGET must be one of {', '.join(BUDGET_KINDS)}, not {forced!r}"
        )
    unified, controllers = _cgroup_mounts()
    problems = []
    if forced in ("", "cgroup2"):
        if unified is None:
            problems.append("no cgroup2 is mounted")
        else:
            try:
                return BudgetSupport("cgroup2", (("", _probe_cgroup2(unified)),))
            except OSError as error:
                problems.append(f"cgroup2: {error.strerror or error}")
    if forced in ("", "cgroup1"):
        try:
            bases = _probe_cgroup1(controllers)
            return BudgetSupport("cgroup1", tuple(bases.items()))
        except OSError as error:
            problems.append(f"cgroup v1: {error.strerror or error}")
    if forced == "watchdog":
        problems.append("forced by DP_ARENA_BUDGET")
    return BudgetSupport("watchdog", problem="; ".join(problems) or None)


def _remove_stale(bases: Iterable[str]) -> None:
    """Remove the groups of dealers that are no longer running (killed before they
    could remove their own), killing whatever is left in them."""
    for base in bases:
        try:
            names = os.listdir(base)
        except OSError:
            continue
        for name in names:
            owner = name.split("-", 1)[0]
            path = os.path.join(base, name)
            if not owner.isdigit() or pid_alive(int(owner)) or not os.path.isdir(path):
                continue
            _kill_group(path)
            with contextlib.suppress(OSError):
                os.rmdir(path)


def _group_pids(path: str) -> list[int]:
    try:
        return [int(line) for line in _read(os.path.join(path, "cgroup.procs")).split()]
    except (OSError, ValueError):
        return []


def _kill_group(path: str, timeout: float = 2.0) -> bool:
    """SIGKILL every process in a group until it is empty; whether it emptied."""
    kill_file = os.path.join(path, "cgroup.kill")
    deadline = time.monotonic() + timeout
    while True:
        pids = _group_pids(path)
        if not pids:
            return True
        if os.path.exists(kill_file):
            with contextlib.suppress(OSError):
                _write(kill_file, "1")
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)


class Budget:
    """One bot's budget: the groups its launcher joins, its usage and its verdict."""

    kind = "watchdog"

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.verdict: str | None = None  # why the budget killed the bot, once it did
        self.pid: int | None = None  # the bot's first process, once started
        self.uid: int | None = None  # the bot's own uid, when it has one

    def procs_files(self) -> list[str]:
        """``cgroup.procs`` files the bot's launcher writes its pid to, before anything."""
        return []

    def started(self, pid: int, uid: int | None) -> None:
        self.pid, self.uid = pid, uid

    def check(self, table: dict[int, tuple[int, int, str]] | None = None) -> str | None:
        """Why the bot is over its budget, or ``None``; ``table`` is the ``/proc`` scan
        (pid -> (ppid, uid, state)) the monitor made for watchdog budgets."""
        return None

    def kill(self) -> None:
        """SIGKILL every process of the bot's tree that the budget knows of."""

    def remove(self) -> None:
        """Give back what the budget holds (its groups); the bot is dead by then."""

    def _over(self, memory: int, cpu_seconds: float, oom_kills: int) -> str | None:
        if oom_kills:
            return (
                f"over its memory budget of {self.limits.memory_bytes // (1024 * 1024)} MiB"
                f" for its whole process tree ({self.kind}: {oom_kills} process(es)"
                " killed out of memory)"
            )
        if memory > self.limits.memory_bytes:
            return (
                f"over its memory budget of {self.limits.memory_bytes // (1024 * 1024)} MiB"
                f" for its whole process tree ({self.kind}: {memory // (1024 * 1024)} MiB)"
            )
        if cpu_seconds > self.limits.cpu_seconds:
            return (
                f"over its CPU budget of {self.limits.cpu_seconds} s for its whole process"
                f" tree ({self.kind}: {cpu_seconds:.1f} s)"
            )
        return None


class _WatchdogBudget(Budget):
    """The tree found through ``/proc`` (the bot's uid, else the launcher's
    descendants), its usage summed there."""

    def __init__(self, limits: Limits) -> None:
        super().__init__(limits)
        self._cpu_peak = 0.0

    def _tree(self, table: dict[int, tuple[int, int, str]]) -> list[int]:
        if self.pid is None:
            return []
        if self.uid is not None:
            tree = {pid for pid, (_, uid, _) in table.items() if uid == self.uid}
        else:
            tree = set()
        children: dict[int, list[int]] = {}
        for pid, (ppid, _, _) in table.items():
            children.setdefault(ppid, []).append(pid)
        stack = [self.pid] if self.pid in table else []
        while stack:
            pid = stack.pop()
            tree.add(pid)
            stack.extend(child for child in children.get(pid, []) if child not in tree)
        return sorted(tree)

    def check(self, table: dict[int, tuple[int, int, str]] | None = None) -> str | None:
        table = table if table is not None else proc_table()
        tree = self._tree(table)
        live = [pid for pid in tree if table[pid][2] not in ("Z", "X")]
        memory = sum(memory_bytes(pid) for pid in live)
        self._cpu_peak = max(self._cpu_peak, sum(cpu_seconds(pid) for pid in tree))
        return self._over(memory, self._cpu_peak, 0)

    def kill(self) -> None:
        for pid in self._tree(proc_table()):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


class _CgroupBudget(Budget):
    """Groups of its own: ``bases`` maps a controller (cgroup1) or ``""`` (cgroup2) to
    the base folder the bot's group is made in."""

    def __init__(
        self,
        kind: str,
        bases: dict[str, str],
        limits: Limits,
        name: str,
        sandbox_tasks: int = LAUNCHER_TASKS,
    ) -> None:
        super().__init__(limits)
        self.kind = kind
        self.sandbox_tasks = sandbox_tasks
        self.paths: dict[str, str] = {}
        try:
            for controller, base in bases.items():
                path = os.path.join(base, name)
                os.mkdir(path)
                self.paths[controller] = path
            self._limit()
        except OSError:
            self.remove()
            raise

    def _limit(self) -> None:
        limits = self.limits
        memory, processes = str(limits.memory_bytes), str(limits.processes + self.sandbox_tasks)
        if self.kind == "cgroup2":
            path = self.paths[""]
            _write(os.path.join(path, "memory.max"), memory)
            swap = os.path.join(path, "memory.swap.max")
            if os.path.exists(swap):
                _write(swap, "0")
            _write(os.path.join(path, "pids.max"), processes)
            return
        _write(os.path.join(self.paths["memory"], "memory.limit_in_bytes"), memory)
        swap = os.path.join(self.paths["memory"], "memory.memsw.limit_in_bytes")
        if os.path.exists(swap):  # present when swap is accounted: no swapping past it
            _write(swap, memory)
        _write(os.path.join(self.paths["pids"], "pids.max"), processes)

    def procs_files(self) -> list[str]:
        return [os.path.join(path, "cgroup.procs") for path in self.paths.values()]

    def _usage(self) -> tuple[float, int]:
        """(CPU seconds of the tree, processes killed out of memory)."""
        if self.kind == "cgroup2":
            path = self.paths[""]
            stat = dict(line.split() for line in _read(os.path.join(path, "cpu.stat")).splitlines())
            events = dict(
                line.split() for line in _read(os.path.join(path, "memory.events")).splitlines()
            )
            return int(stat.get("usage_usec", 0)) / 1e6, int(events.get("oom_kill", 0))
        control = dict(
            line.split()
            for line in _read(os.path.join(self.paths["memory"], "memory.oom_control")).splitlines()
        )
        if "cpuacct" in self.paths:
            cpu = int(_read(os.path.join(self.paths["cpuacct"], "cpuacct.usage"))) / 1e9
        else:
            cpu = sum(cpu_seconds(pid) for pid in _group_pids(self.paths["memory"]))
        return cpu, int(control.get("oom_kill", 0))

    def check(self, table: dict[int, tuple[int, int, str]] | None = None) -> str | None:
        try:
            cpu, oom_kills = self._usage()
        except (OSError, ValueError):
            return None
        return self._over(0, cpu, oom_kills)

    def kill(self) -> None:
        for path in self.paths.values():
            _kill_group(path)

    def remove(self) -> None:
        for controller, path in list(self.paths.items()):
            if not _kill_group(path):
                continue  # still busy: the next dealer's stale sweep removes it
            for _ in range(50):
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
            else:
                continue
            del self.paths[controller]
        if not self.paths:
            with _live_lock:
                _live.discard(self)


_stale_swept: set[str] = set()
_live: set[_CgroupBudget] = set()
_live_lock = threading.Lock()


def new_budget(limits: Limits, sandbox_tasks: int = LAUNCHER_TASKS) -> Budget:
    """A budget for one new bot process, of the best kind this machine offers; a
    watchdog if its groups cannot be made just now. ``sandbox_tasks``: the sandbox's
    own processes in the tree, beside the bot's ``limits.processes``."""
    support = budget_support()
    if support.kind == "watchdog":
        return _WatchdogBudget(limits)
    bases = dict(support.bases)
    if support.kind not in _stale_swept:
        _stale_swept.add(support.kind)
        _remove_stale(bases.values())
        atexit.register(_remove_live)
    global _counter
    with _counter_lock:
        _counter += 1
        name = f"{os.getpid()}-{_counter}"
    try:
        budget = _CgroupBudget(support.kind, bases, limits, name, sandbox_tasks)
    except OSError:
        return _WatchdogBudget(limits)
    with _live_lock:
        _live.add(budget)
    return budget


def _remove_live() -> None:
    """At the dealer's exit: seats nobody closed still hold groups; kill and remove."""
    with _live_lock:
        budgets = list(_live)
    for budget in budgets:
        budget.remove()
