"""What every isolation backend is: :class:`Backend`, one class per mode, each in a
file of its own beside this one (as httpx keeps its transports), and the record of
what a mode guarantees (:class:`Isolation`).

A backend answers three questions, and :mod:`~dp_arena.sandbox.confinement.isolation`
asks them once, best mode first: does it work here (:meth:`Backend.probe`, by starting a
trivial sandboxed process), what does it guarantee (:meth:`Backend.describe`), and what
command puts a bot inside it (:meth:`Backend.wrap`). Every mode runs the bot under its
limits (``prlimit``), as its own uid when the dealer is root (``setpriv``) and under the
syscall filter; the namespace modes (:class:`NamespaceBackend`) also give it a
read-only root of its runtime view and a private copy of its own files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

from dp_arena.records import to_json
from dp_arena.sandbox.confinement import seccomp
from dp_arena.sandbox.confinement.command import SandboxCommand, launcher_argv
from dp_arena.sandbox.confinement.mounts import private_copy
from dp_arena.sandbox.confinement.runtime import RuntimeView, python_view, system_view
from dp_arena.sandbox.confinement.uids import next_uid
from dp_arena.sandbox.limits import Limits

__all__ = [
    "Backend",
    "Enclosure",
    "Isolation",
    "NamespaceBackend",
    "Root",
    "is_root",
    "world_reachable",
]


@dataclass(frozen=True, slots=True)
class Isolation:
    """What isolation is active: the mode and, in words, what it guarantees."""

    mode: str
    own_uid: bool  # the bot runs as a uid of its own, not root
    network_namespace: bool  # the bot cannot reach the host's network, loopback included
    pid_namespace: bool  # closing the bot kills every process it started, setsid or not
    private_filesystem: bool  # the bot sees only its folder, the runtime and a private /tmp
    warning: str | None = None
    resource_limits: bool = True  # setrlimit through util-linux prlimit
    budget: str = "watchdog"  # what counts the whole tree: cgroup2, cgroup1 or watchdog
    budget_detail: str = ""
    syscall_filter: bool = False  # no new namespaces or mounts (seccomp)
    filter_detail: str = ""
    proc_masked: bool = False  # host-wide /proc figures replaced by constants
    seats: str = "exec"  # Python bots' seats: forked from a warm template, or exec'd
    residency: str = ""  # how the runtime bots read is kept in memory (namespace modes)

    def describe(self) -> list[str]:
        """Human-readable lines, as ``dp-arena check-agent`` prints them."""
        yes_no = {True: "yes", False: "NO"}
        lines = [
            f"isolation mode: {self.mode}",
            f"  no network (own network namespace): {yes_no[self.network_namespace]}",
            f"  own process namespace (no process outlives the bot): {yes_no[self.pid_namespace]}",
            (
                "  private filesystem (own files read-only, private /tmp):"
                f" {yes_no[self.private_filesystem]}"
            ),
            f"  non-root uid of its own: {yes_no[self.own_uid]}",
            (
                "  resource limits (memory, CPU, open files, processes, file size):"
                f" {yes_no[self.resource_limits]}"
            ),
            (
                "  budgets for the bot's whole process tree (memory, processes, CPU):"
                f" {self.budget_detail or self.budget}"
            ),
            (
                "  syscall filter (no new namespaces, mounts, tracing, kernel keyring, ...):"
                f" {yes_no[self.syscall_filter]}"
                + (f" ({self.filter_detail})" if self.filter_detail else "")
            ),
            (
                "  host-wide /proc figures masked (load, memory, CPU counters):"
                f" {yes_no[self.proc_masked]}"
            ),
            f"  seats of Python bots: {_SEAT_WORDS[self.seats]}",
            (
                "  mirrored copies share no file (a private copy of the bot's files per seat,"
                f" the runtime kept in memory): {self.residency or 'NO'}"
            ),
        ]
        if self.warning:
            lines.append(f"  WARNING: {self.warning}")
        return lines

    def to_json(self) -> dict[str, object]:
        return to_json(self)


_SEAT_WORDS = {
    "fork": (
        "forked from a warm template of the bot's sandbox (each seat still its own"
        " processes, namespaces, /tmp, uid and budget)"
    ),
    "exec": "a fresh sandbox and interpreter started for each seat",
}


@dataclass(frozen=True, slots=True)
class Enclosure:
    """What one sandbox encloses: the bot's working folder, its own files (``own``: a file
    or a folder, shown read-only at their path), the runtime view it sees, its limits, its
    uid (``None``: the dealer's own), the syscall filter, and whether the sandbox is a warm
    template's (whose seats each set their own limits, uid and filter)."""

    bot_dir: Path
    own: Path
    runtime: RuntimeView
    limits: Limits
    uid: int | None
    filter_program: bytes | None = None
    template: bool = False


@dataclass(frozen=True, slots=True)
class Root:
    """The read-only root a namespace mode builds for a bot: the runtime ``view`` (its
    enclosure's with the system's), the bot's ``own`` files (``(source, path)``: a seat's
    private copy at the path of the originals) and the seat's ``scratch`` folder, removed
    after it ends."""

    view: RuntimeView
    own: tuple[str, str]
    scratch: str


def is_root() -> bool:
    return os.geteuid() == 0


class Backend:
    """One isolation mode: whether it works here, what it guarantees, and the command
    that runs a bot inside it. Subclasses name their ``mode`` and the ``tools`` they need
    on this machine, and give :meth:`describe` and :meth:`_confine`."""

    mode: ClassVar[str]
    tools: ClassVar[tuple[str, ...]] = ()
    # Whether the bot gets namespaces of its own (then, as root, it also runs as its own
    # uid through setpriv, which the probe checks too).
    namespaces: ClassVar[bool] = False
    # Whether the sandbox loads the syscall filter itself (else a launcher installs it).
    loads_filter: ClassVar[bool] = False

    def probe(self, filter_program: bytes | None = None) -> str | None:
        """``None`` if this mode (with ``filter_program``, if given) can start a
        sandboxed ``true`` here, else why not."""
        for tool in self.tools:
            if shutil.which(tool) is None:
                return f"{tool} is not installed"
        if self.namespaces and is_root() and shutil.which("setpriv") is None:
            return "setpriv is not installed"
        probe_dir = tempfile.mkdtemp(prefix="dp-arena-probe-")
        try:
            os.chmod(probe_dir, 0o755)
            uid = next_uid() if is_root() and self.namespaces else None
            folder = Path(probe_dir)
            enclosure = Enclosure(folder, folder, RuntimeView(), Limits(), uid, filter_program)
            command = self.wrap(["/bin/sh", "-c", "exit 0"], enclosure)
            try:
                completed = subprocess.run(
                    launcher_argv(command, []),
                    env=command.env,
                    cwd="/",
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=30,
                    check=False,
                )
            except (OSError, subprocess.TimeoutExpired) as error:
                return str(error)
            finally:
                if command.scratch:
                    shutil.rmtree(command.scratch, ignore_errors=True)
            if completed.returncode != 0:
                lines = completed.stderr.decode("utf-8", "replace").strip().splitlines()
                return (lines or ["failed"])[-1][:200]
            return None
        finally:
            shutil.rmtree(probe_dir, ignore_errors=True)

    def describe(self) -> Isolation:
        """What this mode guarantees, before what every mode shares is checked (budgets,
        syscall filter, seats, residency:
        :func:`~dp_arena.sandbox.confinement.isolation.detect`)."""
        raise NotImplementedError

    def _guarantees(self, *, own_uid: bool, warning: str | None) -> Isolation:
        """This mode's :class:`Isolation`: its namespaces, if it makes them, give the bot
        no network, a PID namespace, a private filesystem and masked ``/proc`` figures."""
        walls = self.namespaces
        return Isolation(
            self.mode,
            own_uid=own_uid,
            network_namespace=walls,
            pid_namespace=walls,
            private_filesystem=walls,
            warning=warning,
            proc_masked=walls,
        )

    def wrap(self, argv: Sequence[str], enclosure: Enclosure) -> SandboxCommand:
        """``argv`` as a command in this mode's sandbox, ``enclosure``: under the bot's
        limits, its uid and the syscall filter (a template's seats set their own, so a
        template gets none of them), inside what :meth:`_confine` makes of it."""
        launcher: list[str] = []
        program = enclosure.filter_program
        if program is not None and not self.loads_filter:
            # No sandbox to load the filter: a launcher installs it, then execs the bot.
            launcher = [sys.executable, "-I", "-S", seccomp.__file__, program.hex()]
            enclosure = replace(enclosure, runtime=enclosure.runtime | python_view())
        inner = list(argv)
        if not enclosure.template:
            inner = _limits_argv(enclosure.limits) + _drop_argv(enclosure.uid) + launcher + inner
        return self._confine(inner, enclosure)

    def _confine(self, inner: list[str], enclosure: Enclosure) -> SandboxCommand:
        """The command that runs ``inner`` (already under the limits, uid and filter)
        inside this mode's sandbox."""
        raise NotImplementedError


class NamespaceBackend(Backend):
    """A mode of new namespaces and a read-only root: the bot sees its runtime view (with
    the system's) and a private copy of its own files, made in its scratch folder (a
    template shows the originals: each of its seats makes its own copy)."""

    namespaces: ClassVar[bool] = True

    def describe(self) -> Isolation:
        warning = None
        if not is_root():
            warning = (
                "not running as root: the bot runs as your own user, so the process limit"
                " counts all your processes"
            )
        return self._guarantees(own_uid=is_root(), warning=warning)

    def _confine(self, inner: list[str], enclosure: Enclosure) -> SandboxCommand:
        view = system_view() | enclosure.runtime
        scratch = tempfile.mkdtemp(prefix="dp-arena-seat-")
        os.chmod(scratch, 0o755)
        own = enclosure.own
        shown = own if enclosure.template else private_copy(own, Path(scratch) / "own")
        command = self._enter(inner, enclosure, Root(view, (str(shown), str(own)), scratch))
        return replace(command, scratch=scratch)

    def _enter(self, inner: list[str], enclosure: Enclosure, root: Root) -> SandboxCommand:
        """``inner`` inside new namespaces, with ``root`` as its read-only root."""
        raise NotImplementedError


def binds(view: RuntimeView, own: tuple[str, str]) -> list[tuple[str, str]]:
    """``(source, path)`` read-only binds of a view's folders and files and of the bot's
    own files, outermost first."""
    bound = [(path, path) for path in (*view.trees, *view.files)] + [own]
    return sorted(bound, key=lambda bind: (bind[1].count("/"), bind[1]))


def world_reachable(path: Path) -> bool:
    """Whether a process of another uid can read ``path`` through the host's permissions."""
    try:
        if not os.stat(path).st_mode & 0o004:
            return False
        return all(os.stat(ancestor).st_mode & 0o001 for ancestor in path.parents)
    except OSError:
        return False


def _limits_argv(limits: Limits) -> list[str]:
    if (
        shutil.which("prlimit") is None
    ):  # util-linux without prlimit: the limits are lost, say so upstream
        return []
    return [
        "prlimit",
        f"--as={limits.memory_bytes}",
        # SIGXCPU at the soft limit, SIGKILL a second later for a bot that catches it.
        f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",
        f"--nofile={limits.open_files}",
        f"--nproc={limits.processes}",
        f"--fsize={limits.file_size}",
        "--core=0",
        "--",
    ]


def _drop_argv(uid: int | None) -> list[str]:
    if uid is None:
        return []
    return [
        "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]
