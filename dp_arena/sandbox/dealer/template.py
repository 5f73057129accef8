"""Warm templates of Python bots' sandboxes, and the seat processes forked from them: the
dealer's side of :mod:`dp_arena.sandbox.bot.zygote`.

A Python bot's seat costs most of its start-up in things every seat of that bot repeats:
starting bubblewrap, then an interpreter, then importing the agent API and the engine. A
:class:`Template` does them once: it is the bot's own sandbox (the same files, runtime,
namespaces and ``/proc`` stand-ins), started with the zygote instead of the runner, and
kept while the dealer runs. Each seat is then a request to it (:meth:`Template.fork`):
two fresh processes in new namespaces of their own, under the seat's own uid, limits,
budget and syscall filter, before any bot code runs (see :mod:`dp_arena.sandbox.bot.zygote`
for what a fork shares and why none of it crosses seats).

Each seat forked is a :class:`~dp_arena.sandbox.dealer.forked.ForkedProcess`.

Templates are kept per dealer process, one per distinct :class:`TemplatePlan`, at most
:data:`MAX_IDLE` of them without a live seat (the least recently used goes first). A
template that cannot start or stops answering is dropped, and seats are exec'd as
before (a warning says so once).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from typing import Any

from dp_arena.sandbox.confinement.command import TemplatePlan
from dp_arena.sandbox.confinement.isolation import template_command
from dp_arena.sandbox.confinement.mounts import host_folder
from dp_arena.sandbox.confinement.uids import next_uid
from dp_arena.sandbox.dealer.forked import ForkedProcess, readable, ready
from dp_arena.sandbox.limits import Limits

__all__ = [
    "MAX_IDLE",
    "Template",
    "TemplateError",
    "close_all",
    "fork_seat",
    "prepare",
    "release_seat",
    "write_bytecode_once",
]

# Templates kept without a live seat, per dealer process (each holds ~30 MB, shared with
# the seats forked from it).
MAX_IDLE = 8
_CREDENTIALS = struct.Struct("3i")  # struct ucred: pid, uid, gid
_FD = struct.Struct("i")


class TemplateError(OSError):
    """A template could not start, or could not make a seat."""


class SeatNotMade(TemplateError):
    """A template that still works made no seat this time (it said why): the seat is
    exec'd instead, and the template kept."""


def _rlimits(limits: Limits) -> list[tuple[str, int, int]]:
    """The per-process limits, as ``prlimit`` sets them for an exec'd seat."""
    return [
        ("as", limits.memory_bytes, limits.memory_bytes),
        # SIGXCPU at the soft limit, SIGKILL a second later for a bot that catches it.
        ("cpu", limits.cpu_seconds, limits.cpu_seconds + 1),
        ("nofile", limits.open_files, limits.open_files),
        ("nproc", limits.processes, limits.processes),
        ("fsize", limits.file_size, limits.file_size),
        ("core", 0, 0),
    ]


class Template:
    """One warm template process: ``plan``'s sandbox running the zygote."""

    def __init__(self, plan: TemplatePlan, load_timeout: float) -> None:
        self.plan = plan
        self.live = 0  # seats forked from it and not yet released
        self._lock = threading.Lock()
        write_bytecode_once()
        command = template_command(plan)
        self._scratch = command.scratch
        self.control, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.control.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.zygote_pid: int | None = None  # the template's own process, once it is ready
        log = open(host_folder() / f"template-{os.getpid()}-{id(self)}.log", "ab")  # noqa: SIM115
        try:
            self.process = subprocess.Popen(
                list(command.argv),
                stdin=child.fileno(),
                stdout=subprocess.DEVNULL,
                stderr=log,
                env=command.env,
                cwd=command.cwd,
                close_fds=True,
                start_new_session=True,
            )
        except OSError as error:
            self.control.close()
            raise TemplateError(f"cannot start a template: {error}") from error
        finally:
            child.close()
            log.close()
        self._log_path = log.name
        self._ready = False
        self._deadline = time.monotonic() + load_timeout

    def wait_ready(self) -> None:
        """Wait for the template to have imported everything (it starts in the
        background); :class:`TemplateError` if it does not within its load timeout."""
        if self._ready:
            return
        try:
            if not readable(self.control, self._deadline):
                raise TemplateError("no answer within the load timeout")
            self.zygote_pid = _sender_pid(self.control, b'{"ready": true}')
        except (TemplateError, OSError) as error:
            raise TemplateError(
                f"the template did not start ({error}): {self.log_tail()}"
            ) from None
        self._ready = True

    def log_tail(self) -> str:
        try:
            with open(self._log_path, "rb") as log:
                return log.read()[-300:].decode("utf-8", "replace").strip() or "no output"
        except OSError:
            return "no log"

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def fork(
        self,
        uid: int,
        limits: Limits,
        procs_files: list[str],
        deadline: float,
        *,
        probe: bool = False,
    ) -> ForkedProcess:
        """A new seat process of this template's bot, under ``uid`` and ``limits``, whose
        init the dealer has moved into ``procs_files`` (the seat's cgroups) before it
        goes on. :class:`TemplateError` if the template cannot make it."""
        stdin_read, stdin_write = os.pipe()
        stdout_read, stdout_write = os.pipe()
        stderr_read, stderr_write = os.pipe()
        status, status_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        status.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        request = {
            "uid": uid,
            "rlimits": _rlimits(limits),
            "tmp_bytes": limits.tmp_bytes,
            "probe": probe,
        }
        ours = [stdin_write, stdout_read, stderr_read]
        try:
            try:
                with self._lock:
                    self.wait_ready()
                    socket.send_fds(
                        self.control,
                        [json.dumps(request).encode()],
                        [stdin_read, stdout_write, stderr_write, status_child.fileno()],
                    )
            finally:
                for fd in (stdin_read, stdout_write, stderr_write):
                    os.close(fd)
                status_child.close()
            pid, pidfd = _forked(status, deadline)
        except OSError as error:
            status.close()
            for fd in ours:
                os.close(fd)
            if isinstance(error, SeatNotMade):
                raise
            raise TemplateError(f"the template made no seat: {error}") from error
        forked = ForkedProcess(status, pid, pidfd, (stdin_write, stdout_read, stderr_read))
        try:
            for path in procs_files:  # the seat's budget, before anything of it runs
                with open(path, "w", encoding="ascii") as procs:
                    procs.write(str(pid))
            if ready(pidfd, 0):
                # It ended before the lines above: its pid may be another process's now.
                raise OSError("the seat's init ended before it was in its budget")
            status.send(b"go")
        except OSError as error:
            forked.kill()
            forked.release()
            for stream in (forked.stdin, forked.stdout, forked.stderr):
                stream.close()
            raise TemplateError(f"cannot put the seat in its budget: {error}") from error
        self.live += 1
        return forked

    def close(self) -> None:
        """End the template (its seats must be gone: they die with it)."""
        with contextlib.suppress(OSError):
            self.control.close()
        try:
            self.process.wait(2)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(5)
        if self._scratch:
            import shutil

            shutil.rmtree(self._scratch, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.unlink(self._log_path)

    def check(self, limits: Limits) -> None:
        """Make one seat that goes through every step of a seat's set-up, then exits
        before a runner would start: :class:`TemplateError` if it cannot (a kernel that
        refuses a mount, say), so that the bot's seats are exec'd instead of failing."""
        probe = self.fork(
            next_uid(), limits, [], time.monotonic() + limits.load_timeout, probe=True
        )
        try:
            for stream in (probe.stdin, probe.stdout, probe.stderr):
                stream.close()
            try:
                code = probe.wait(limits.load_timeout)
            except subprocess.TimeoutExpired:
                code = None
            probe.wait_gone(5)
        finally:
            probe.kill()
            probe.release()
            self.live -= 1
        if code != 0:
            raise TemplateError(
                f"a seat could not be made ({probe.setup_error or f'exit status {code}'})"
            )


def _forked(status: socket.socket, deadline: float) -> tuple[int, int]:
    """The pid (as this process sees it) and a pidfd of a new seat's init, from its
    first message, which brings the pidfd; :class:`SeatNotMade` if the template says
    why it made none."""
    if not readable(status, deadline):
        raise TemplateError("no answer from the template")
    data, ancillary, _, _ = status.recvmsg(
        1024,
        socket.CMSG_SPACE(_CREDENTIALS.size) + socket.CMSG_SPACE(_FD.size),
        socket.MSG_CMSG_CLOEXEC,
    )
    pid, fds = _ancillary(ancillary)
    if data != b'{"forked": true}' or pid is None or len(fds) != 1:
        for fd in fds:
            os.close(fd)
        refusal = _refusal(data)
        if refusal is not None:
            raise SeatNotMade(refusal)
        raise TemplateError(f"unexpected answer from the template: {data[:100]!r}")
    return pid, fds[0]


def _refusal(data: bytes) -> str | None:
    """Why the template made no seat, if ``data`` says so."""
    try:
        message = json.loads(data)
    except ValueError:
        return None
    return str(message["error"]) if isinstance(message, dict) and "error" in message else None


def _ancillary(ancillary: list[tuple[int, int, bytes]]) -> tuple[int | None, list[int]]:
    """The sender's pid (``SO_PASSCRED``) and the file descriptors in a message."""
    pid: int | None = None
    fds: list[int] = []
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            pid = int(_CREDENTIALS.unpack(payload[: _CREDENTIALS.size])[0])
        elif level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(payload) - len(payload) % _FD.size
            fds.extend(fd for (fd,) in _FD.iter_unpack(payload[:usable]))
    return pid, fds


def _sender_pid(sock: socket.socket, expected: bytes) -> int:
    """Read ``expected`` from ``sock``; the host pid of the process that sent it, which
    the kernel attaches (``SO_PASSCRED``), translated into the dealer's PID namespace."""
    data, ancillary, _, _ = sock.recvmsg(256, socket.CMSG_SPACE(_CREDENTIALS.size))
    if data != expected:
        raise TemplateError(f"unexpected answer from the template: {data[:100]!r}")
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            pid, _, _ = _CREDENTIALS.unpack(payload[: _CREDENTIALS.size])
            return int(pid)
    raise TemplateError("the template's answer carried no credentials")


# -- the templates of this dealer process ----------------------------------------------

_templates: OrderedDict[TemplatePlan, Template] = OrderedDict()
_failed: dict[TemplatePlan, str] = {}
_unchecked: set[Template] = set()  # started, but no seat of theirs made yet
_pool_lock = threading.Lock()
_warned: set[str] = set()


@functools.cache
def write_bytecode_once() -> None:
    """Write dp-arena's bytecode (once per process) where its modules live, as an import
    would: a template or an exec'd seat sees them read-only, and would otherwise compile
    every module it imports that this process had not (the zygote and the runner among
    them) each time it starts. Skipped where writing bytecode is turned off or the folder
    is read-only."""
    if sys.dont_write_bytecode:
        return
    import compileall

    import dp_arena

    with contextlib.suppress(OSError):
        compileall.compile_dir(os.path.dirname(dp_arena.__file__), quiet=2, workers=1)


def _template_for(plan: TemplatePlan, load_timeout: float) -> Template:
    with _pool_lock:
        template = _templates.get(plan)
        if template is not None and template.alive:
            _templates.move_to_end(plan)
            return template
        if template is not None:
            del _templates[plan]
            template.close()
        if not _templates:
            atexit.register(close_all)
        template = Template(plan, load_timeout)
        _templates[plan] = template
        _unchecked.add(template)
        idle = [key for key, kept in _templates.items() if kept.live == 0 and key != plan]
        for key in idle[: max(0, len(idle) - MAX_IDLE)]:
            _templates.pop(key).close()
        return template


def fork_seat(
    plan: TemplatePlan, uid: int, limits: Limits, procs_files: list[str]
) -> tuple[ForkedProcess, Template] | None:
    """A seat forked from the template of ``plan`` (started if need be), or ``None`` when
    no template can make it here: the caller then execs the seat as before."""
    if plan in _failed:
        return None
    deadline = time.monotonic() + limits.load_timeout
    for attempt in range(2):  # a template that died meanwhile is replaced once
        try:
            template = _template_for(plan, limits.load_timeout)
            if template in _unchecked:
                template.check(limits)
                _unchecked.discard(template)
            return template.fork(uid, limits, procs_files, deadline), template
        except SeatNotMade as error:  # this seat only: it is exec'd, the template kept
            _warn_once(f"a seat is exec'd instead of forked: {error}")
            return None
        except TemplateError as error:
            with _pool_lock:
                dropped = _templates.pop(plan, None)
            if dropped is not None:
                dropped.close()
            if attempt == 1:
                _failed[plan] = str(error)
                _warn_once(f"seats are exec'd instead of forked: {error}")
    return None


def prepare(plans: list[TemplatePlan], load_timeout: float) -> None:
    """Start the templates of ``plans`` now, side by side, without waiting for them (a
    table's or a batch's bots, before their first seat)."""
    for plan in dict.fromkeys(plans):
        if plan in _failed:
            continue
        try:
            _template_for(plan, load_timeout)
        except TemplateError as error:
            _failed[plan] = str(error)
            _warn_once(f"seats are exec'd instead of forked: {error}")


def release_seat(template: Template) -> None:
    with _pool_lock:
        template.live = max(0, template.live - 1)


def close_all() -> None:
    """End every template of this process (at exit; their seats are gone by then)."""
    with _pool_lock:
        templates = list(_templates.values())
        _templates.clear()
    for template in templates:
        template.close()


def _warn_once(text: str) -> None:
    if text not in _warned:
        _warned.add(text)
        print(f"dp-arena sandbox: WARNING: {text}", file=sys.stderr)


def template_processes(table: dict[int, tuple[int, int, str]]) -> set[int]:
    """The processes of this dealer's templates themselves (their sandbox's and the
    zygote's, not the seats forked from them), in ``table``
    (:func:`~dp_arena.sandbox.confinement.processes.proc_table`)."""
    with _pool_lock:
        roots = [(template.process.pid, template.zygote_pid) for template in _templates.values()]
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    for root, zygote in roots:
        stack = [root]
        while stack:
            pid = stack.pop()
            found.add(pid)
            if pid != zygote:  # below the zygote are seats
                stack.extend(children.get(pid, []))
    return found


def live_templates() -> list[dict[str, Any]]:
    """What templates this process holds (for tests and diagnostics)."""
    with _pool_lock:
        return [
            {"pid": template.process.pid, "live": template.live, "spec": plan.runner_args}
            for plan, template in _templates.items()
        ]
