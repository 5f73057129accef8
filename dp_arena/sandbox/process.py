"""A seat whose bot runs in its own sandboxed process and speaks the pipe protocol.

The table cannot tell a :class:`ProcessSeat` from an in-process one: every call returns
an action, ``None`` or a :class:`~dp_arena.agents.SeatFault`, never raises, and never
waits past the bot's time limits. The process is started when the seat is made (so the
bots of a table load in parallel); its hello is awaited at the first call, and a bot that
did not load answers that call with a ``LOAD_TIMEOUT`` or ``LOAD_ERROR`` fault.
"""

from __future__ import annotations

import atexit
import contextlib
import re
import signal
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.agents.seat import SeatFault
from dp_arena.engine.actions import Action
from dp_arena.results import FaultKind
from dp_arena.sandbox import protocol
from dp_arena.sandbox.isolation import SandboxCommand
from dp_arena.sandbox.limits import Limits
from dp_arena.sandbox.pipes import BotLog, Closed, Oversized, Pipes
from dp_arena.sandbox.spawn import BotProcess, spawn
from dp_arena.sandbox.template import ForkedProcess
from dp_arena.text import excerpt, printable

__all__ = ["REAPER", "ProcessSeat", "Reaper", "log_path"]

# How long a bot may take to exit after its goodbye before it is killed.
EXIT_GRACE = 0.5


def log_path(log_dir: Path | None, name: str) -> Path | None:
    """A fresh log file for a bot called ``name`` in ``log_dir`` (``name.log``,
    ``name.2.log``, ... : mirrored copies of a bot each get their own). The search
    for a free name starts after the last one this process took, so a bot that sits
    down a thousand times does not try a thousand names each time."""
    if log_dir is None:
        return None
    log_dir.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^A-Za-z0-9_.@-]+", "_", name)[:80] or "bot"
    key = (str(log_dir), stem)
    first = _next_log.get(key, 1)
    for index in range(first, first + 10_000):
        path = log_dir / (f"{stem}.log" if index == 1 else f"{stem}.{index}.log")
        try:
            with open(path, "xb"):
                _next_log[key] = index + 1
                return path
        except FileExistsError:
            continue
    raise OSError(f"no free log file name for {name!r} in {log_dir}")


# The index after the last log name each (folder, bot) got in this process.
_next_log: dict[tuple[str, str], int] = {}


class ProcessSeat:
    """A bot in a sandboxed process (see :mod:`dp_arena.sandbox`)."""

    def __init__(
        self, command: SandboxCommand, *, name: str, limits: Limits, log_dir: Path | None = None
    ) -> None:
        self.name = name
        self.limits = limits
        self.command = command
        self.bot_name = ""  # what the bot calls itself in its hello
        self.log = BotLog(log_path(log_dir, name), limits.log_bytes)
        self._dead: SeatFault | None = None  # why the bot is gone, once it is
        self._reported_dead = False
        self._loaded = False
        self._goodbye_sent = False
        self._hooks: frozenset[str] | None = None  # the hooks the bot has, if it said
        # Errors and stray lines, reported at the next notification: (kind, what happened).
        self._pending: list[tuple[FaultKind, str]] = []
        self._request_id = 0
        self._given_up: set[int] = set()  # requests that timed out: their late replies are dropped
        self._bank = limits.time_bank
        self._started = time.monotonic()
        self.decision_seconds: list[float] = []
        self.process: subprocess.Popen[bytes] | ForkedProcess | None = None
        self.sandbox: BotProcess | None = None
        self.pipes: Pipes | None = None
        try:
            self.sandbox = spawn(command, limits)
            self.process = self.sandbox.process
            self.command = self.sandbox.command  # a spare made ahead has its own uid
        except OSError as error:
            self._dead = SeatFault(FaultKind.LOAD_ERROR, f"cannot start {command.argv[0]}: {error}")
            return
        assert self.process.stdin and self.process.stdout and self.process.stderr
        # The Popen file objects stay open but unused: all I/O goes through the raw fds.
        self.pipes = Pipes(
            self.process.stdin.fileno(),
            self.process.stdout.fileno(),
            self.process.stderr.fileno(),
            message_bytes=limits.message_bytes,
            log=self.log,
        )
        hello = protocol.encode(protocol.hello(name, limits.to_json()))
        with contextlib.suppress(Closed):  # the load check reports why the bot is gone
            self.pipes.send(hello, self._started + limits.load_timeout)

    # -- the Seat protocol ------------------------------------------------------------

    @property
    def active(self) -> bool:
        """True until the seat has reported that its bot is gone (failed load or crash)."""
        return not self._reported_dead

    def begin_session(self, context: SessionContext) -> SeatFault | None:
        self._bank = self.limits.time_bank
        if self._unheard("begin_session"):
            return self._notify(None)
        return self._notify(protocol.session_start(context))

    def begin_deal(self, start: DealStart) -> SeatFault | None:
        if self._unheard("begin_deal"):
            return self._notify(None)
        return self._notify(protocol.deal_start(start))

    def end_deal(self, end: DealEnd) -> SeatFault | None:
        if self._unheard("end_deal"):
            return self._notify(None)
        return self._notify(protocol.deal_end(end))

    def _unheard(self, hook: str) -> bool:
        """Whether the bot said in its hello that it has no such hook (the Python
        runner says which it has): its notification is then not sent at all."""
        return self._loaded and self._hooks is not None and hook not in self._hooks

    def decide(self, observation: Observation) -> Action | SeatFault:
        fault = self._ready()
        if fault is not None:
            return fault
        assert self.pipes is not None
        self._drain()  # late replies and stray lines from earlier decisions
        self._request_id += 1
        request_id = self._request_id
        started = time.monotonic()
        deadline = started + self.limits.action_timeout + self._bank
        answer = self._ask(
            protocol.encode(protocol.act(request_id, observation)), request_id, deadline
        )
        elapsed = time.monotonic() - started
        self.decision_seconds.append(elapsed)
        if isinstance(answer, SeatFault) and answer.kind is FaultKind.TIMEOUT:
            self._bank = 0.0
            self._given_up.add(request_id)
        elif elapsed > self.limits.action_timeout:
            self._bank = max(0.0, self._bank - (elapsed - self.limits.action_timeout))
        return answer

    def say_goodbye(self) -> bool:
        """Tell the bot the session is over, without waiting for it to exit (so that the
        bots of a table exit side by side); whether it was told. :meth:`close` ends it."""
        process = self.process
        if self._goodbye_sent or process is None or self.pipes is None:
            return self._goodbye_sent
        # A bot still busy with a request it timed out on would not read the goodbye:
        # it is killed at once rather than waited for.
        stuck = self._request_id in self._given_up
        if process.poll() is None and self._dead is None and not stuck:
            with contextlib.suppress(Closed):
                self.pipes.send(protocol.encode(protocol.goodbye()), time.monotonic() + 0.1)
                self._goodbye_sent = True
        return self._goodbye_sent

    def close(self) -> None:
        """Say goodbye, give the bot a moment to exit, then kill whatever is left of it."""
        self.say_goodbye()
        self._finish()

    def close_later(self) -> None:
        """Say goodbye now and leave the rest of :meth:`close` to the reaper's thread
        (the table is done with the seat; see :class:`Reaper`)."""
        self.say_goodbye()
        REAPER.add(self)

    def _finish(self) -> None:
        """The end of :meth:`close`, after the goodbye: the grace, the kill, the logs."""
        process = self.process
        if process is not None and self.pipes is not None:
            if self._goodbye_sent:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(EXIT_GRACE)
            self._kill()
            self.pipes.drain_stderr()
            # The process's stream objects own their fds: each fd is closed once, by its
            # owner (a second close could hit an fd another thread opened meanwhile).
            streams = [s for s in (process.stdin, process.stdout, process.stderr) if s]
            self.pipes.close(frozenset(s.fileno() for s in streams if not s.closed))
            for stream in streams:
                with contextlib.suppress(OSError):
                    stream.close()
            self.pipes = None
        self.log.close()
        if self.sandbox is not None:
            self.sandbox.release()
        if self._dead is None:
            self._dead = SeatFault(FaultKind.CRASH, "closed")

    def __del__(self) -> None:  # a seat nobody closed must still not leave a process behind
        if self.sandbox is not None and self.sandbox.process.returncode is None:
            with contextlib.suppress(Exception):
                self.sandbox.kill()
                self.sandbox.release()

    def wait_loaded(self) -> SeatFault | None:
        """Wait for the bot's hello (at most the load timeout); the load fault, if any."""
        if self._dead is None and not self._loaded:
            self._await_hello()
        return self._dead if not self._loaded else None

    # -- internals --------------------------------------------------------------------

    def _kill(self) -> None:
        assert self.sandbox is not None
        self.sandbox.kill()

    def _ready(self) -> SeatFault | None:
        """None if the bot is loaded and alive; otherwise the fault to report, once in
        full and afterwards as a reminder."""
        if self._dead is None and not self._loaded:
            self._await_hello()
        if self._dead is None:
            return None
        if not self._reported_dead:
            self._reported_dead = True
            return self._dead
        return SeatFault(self._dead.kind, f"not running ({self._dead.detail[:100]})")

    def _await_hello(self) -> None:
        """Wait for the hello until the load timeout. Logs are kept and stray output noted
        (one fault, at the first notification); any other line is taken as the hello."""
        assert self.pipes is not None
        deadline = self._started + self.limits.load_timeout
        instead: str | None = None  # the first stray line, if any
        while True:
            try:
                line = self.pipes.read_line(deadline)
            except Oversized as error:
                self._fail(FaultKind.LOAD_ERROR, f"instead of a hello, {error}")
                return
            except Closed:
                self._fail(
                    FaultKind.LOAD_ERROR,
                    f"exited while loading{self._exit_text()}"
                    + (self._partial_text() or _instead(instead)),
                )
                return
            if line is None:
                self._fail(
                    FaultKind.LOAD_TIMEOUT if instead is None else FaultKind.LOAD_ERROR,
                    f"no hello within the load timeout of {self.limits.load_timeout:g} s"
                    + (self._partial_text() if instead is None else _instead(instead)),
                )
                return
            message = self._read(line)
            if isinstance(message, _Unread):
                if not message.stray:
                    self._fail(FaultKind.LOAD_ERROR, f"bad hello: {message.problem}")
                    return
                self._stray_line(message.problem)
                instead = instead or message.problem
                continue
            kind = message.get("type")
            if kind == "log":
                self._log_message(message)
                continue
            if kind == "error":
                self._fail(FaultKind.LOAD_ERROR, f"could not load: {_text(message, 400)}")
                return
            try:
                self.bot_name = protocol.check_hello(message)
            except protocol.ProtocolViolation as error:
                self._fail(FaultKind.LOAD_ERROR, f"bad hello: {error}")
                return
            self._hooks = protocol.hello_hooks(message)
            self._loaded = True
            return

    def _fail(self, kind: FaultKind, detail: str) -> None:
        tail = self.log.tail_text(300)
        self.log.note(f"{kind.value}: {detail}")
        if tail and kind in (FaultKind.LOAD_ERROR, FaultKind.CRASH):
            detail += f"; stderr ends: {tail}"
        self._dead = SeatFault(kind, detail[:1000])
        if self.process is not None:
            self._kill()

    def _exit_text(self) -> str:
        assert self.process is not None
        try:
            code = self.process.wait(2)
        except subprocess.TimeoutExpired:
            return ""
        verdict = self.sandbox.verdict if self.sandbox is not None else None
        verdict = verdict or getattr(self.process, "setup_error", None)
        over = f": {verdict}" if verdict else ""
        if code < 0:
            try:
                return f" (killed by {signal.Signals(-code).name}{over})"
            except ValueError:
                return f" (killed by signal {-code}{over})"
        exact = getattr(self.process, "exact_status", False)
        if code > 128 and not exact and self.command.argv[0] in ("bwrap", "unshare"):
            # The sandbox's launcher reports a bot killed by signal N as status 128 + N.
            try:
                return f" (killed by {signal.Signals(code - 128).name}{over})"
            except ValueError:
                pass
        return f" (exit status {code}{over})"

    def _notify(self, message: dict[str, Any] | None) -> SeatFault | None:
        """Send a one-way message (``None``: one the bot has no hook for, which is not
        sent); the fault to report, if any (including errors the bot reported since the
        last call)."""
        fault = self._ready()
        if fault is not None:
            return fault
        assert self.pipes is not None
        self._drain()
        if message is None:
            return self._pending_fault()
        try:
            if not self.pipes.send(
                protocol.encode(message), time.monotonic() + self.limits.action_timeout
            ):
                return SeatFault(
                    FaultKind.TIMEOUT, f"{message['type']}: the bot is not reading its input"
                )
        except Closed:
            self._fail(
                FaultKind.CRASH, f"{message['type']}: the bot's input is closed{self._exit_text()}"
            )
            self._reported_dead = True
            assert self._dead is not None
            return self._dead
        return self._pending_fault()

    def _pending_fault(self) -> SeatFault | None:
        if not self._pending:
            return None
        problems, self._pending = self._pending, []
        kind = (
            FaultKind.PROTOCOL
            if any(kind is FaultKind.PROTOCOL for kind, _ in problems)
            else FaultKind.ERROR
        )
        return SeatFault(kind, "; ".join(text for _, text in problems)[:1000])

    def _drain(self) -> None:
        assert self.pipes is not None
        with contextlib.suppress(Closed):  # the next read reports the crash
            self.pipes.drain_lines(self._stray, 4 * self.limits.message_bytes)

    def _read(self, line: bytes) -> dict[str, Any] | _Unread:
        """A line from the bot as a message of a kind a bot may send, or what is wrong
        with it: stray output (a line that does not start with ``{`` or ``[``, or an
        object of a type no bot sends) or a broken message (any other line)."""
        try:
            message = protocol.decode(line)
        except protocol.ProtocolViolation as error:
            return _Unread(str(error), stray=line.lstrip()[:1] not in (b"{", b"["))
        kind = message.get("type")
        if kind is None and "type" not in message and ("action" in message or "id" in message):
            return message  # an action, its type left out
        if isinstance(kind, str) and kind in _BOT_MESSAGES:
            return message
        return _Unread(f"not a message of the protocol: {protocol.brief(message)}", stray=True)

    def _stray(self, line: bytes | None) -> None:
        """A line the bot sent while no answer was awaited: a log, an error from a hook,
        a late reply to a request that timed out (dropped), or a stray line; the last
        two, reported at the next notification."""
        if line is None:
            self._stray_line(f"a message over {self.limits.message_bytes} bytes")
            return
        message = self._read(line)
        if isinstance(message, _Unread):
            self._stray_line(message.problem)
            return
        kind = message.get("type", "action")
        if kind == "log":
            self._log_message(message)
        elif kind in ("action", "error") and self._is_late(_request_of(message)):
            self.log.note(f"{kind} for request {_request_of(message)} dropped: it came too late")
        elif kind == "error":
            self._pending.append((FaultKind.ERROR, f"error: {_text(message, 300)}"))
        else:
            self._stray_line(f"a message while no answer was awaited: {protocol.brief(message)}")

    def _stray_line(self, problem: str) -> None:
        # Every stray line until the next notification is one fault together: a flood of
        # garbage is one fault, not thousands.
        if not self._stray_pending():
            self._pending.append((FaultKind.PROTOCOL, f"stray line on stdout: {problem}"))
            self.log.note(f"stray line on stdout: {problem}")

    def _stray_pending(self) -> bool:
        return any(kind is FaultKind.PROTOCOL for kind, _ in self._pending)

    def _is_late(self, request_id: int | None) -> bool:
        return request_id is not None and request_id in self._given_up

    def _log_message(self, message: dict[str, Any]) -> None:
        self.log.note(f"log: {_text(message, 1000)}")

    def _partial_text(self) -> str:
        """What the bot sent without ending the line, if anything (a missing newline or
        flush is the commonest reason a bot in another language seems silent)."""
        assert self.pipes is not None
        partial = self.pipes.partial()
        if not partial:
            return ""
        return (
            f"; {len(partial)} bytes came without a newline: '{excerpt(partial, 60)}'"
            " (end each message with a newline and flush stdout)"
        )

    def _ask(self, request: bytes, request_id: int, deadline: float) -> Action | SeatFault:
        """Send ``act`` and wait for its answer: an action, or an error about it. The
        first message (or broken one) is the answer. Logs are kept, late replies dropped
        and stray output noted while the wait goes on, so a line of debug output costs
        one fault whenever it comes, never the decision; if no answer comes, the fault
        says what the bot wrote instead."""
        assert self.pipes is not None
        instead: str | None = None  # the first stray line of this wait, if any
        stray_before = self._stray_pending()
        stray_bytes = 0
        try:
            if not self.pipes.send(request, deadline):
                return SeatFault(FaultKind.TIMEOUT, "the bot is not reading its input")
            while True:
                try:
                    line = self.pipes.read_line(deadline)
                except Oversized as error:
                    return self._protocol_fault(str(error), request_id)
                if line is None:
                    limit = self.limits.action_timeout + self._bank
                    waited = f"no answer within {limit:.3g} s (action time + time bank)"
                    if instead is None:
                        return SeatFault(FaultKind.TIMEOUT, waited + self._partial_text())
                    # What it wrote instead is the fault: its stray lines are not counted
                    # again at the next notification.
                    if not stray_before:
                        self._pending = [p for p in self._pending if p[0] is not FaultKind.PROTOCOL]
                    return self._protocol_fault(waited + _instead(instead), request_id)
                message = self._read(line)
                if isinstance(message, _Unread) and not message.stray:
                    return self._protocol_fault(message.problem, request_id)
                if isinstance(message, _Unread):
                    self._stray_line(message.problem)
                    instead = instead or message.problem
                    stray_bytes += len(line) + 1
                    if stray_bytes > self.limits.message_bytes:
                        return self._protocol_fault(
                            f"over {self.limits.message_bytes} bytes of stray lines while"
                            f" request {request_id} was awaited{_instead(instead)}",
                            request_id,
                        )
                    continue
                kind = message.get("type", "action")
                answers = _request_of(message)
                if kind == "log":
                    self._log_message(message)
                    continue
                if kind in ("action", "error") and self._is_late(answers):
                    self.log.note(f"{kind} for request {answers} dropped: it came too late")
                    continue
                if kind == "error":
                    if answers == request_id:
                        # A bot may call its own answer malformed (the Python runner does,
                        # as the in-process seat would); it cannot claim any other kind.
                        fault = message.get("fault")
                        return SeatFault(
                            FaultKind.PROTOCOL if fault == "PROTOCOL" else FaultKind.ERROR,
                            _text(message, 500),
                        )
                    self._stray(line)  # an error from a hook: reported at the next hook
                    continue
                try:
                    return protocol.reply_action(message, expected_id=request_id)
                except protocol.ProtocolViolation as error:
                    # A reply to another request (stale) leaves this one open: its own
                    # answer may still come. Any other bad answer closes it.
                    stale = answers is not None and answers != request_id
                    return self._protocol_fault(str(error), None if stale else request_id)
        except Closed:
            self._fail(
                FaultKind.CRASH,
                f"the bot's process ended{self._exit_text()}"
                + (self._partial_text() or _instead(instead)),
            )
            self._reported_dead = True
            assert self._dead is not None
            return self._dead

    def _protocol_fault(self, detail: str, closing: int | None) -> SeatFault:
        """A PROTOCOL fault for a decision; ``closing``: the request it ends, whose
        answer, if one still comes, is dropped as a late reply."""
        if closing is not None:
            self._given_up.add(closing)
        self.log.note(f"PROTOCOL: {detail}")
        return SeatFault(FaultKind.PROTOCOL, detail)


class Reaper:
    """Finishes closing seats in a thread of its own: a table's seats are told goodbye
    and the next table sits down while they exit, each within the same grace and then
    killed, as :meth:`ProcessSeat.close` does. At most :data:`BACKLOG` seats wait here:
    past that, closing waits (a table of bots that ignore their goodbye cannot pile up
    processes). At exit, every seat waiting is finished."""

    BACKLOG = 64

    def __init__(self) -> None:
        self._queue: deque[ProcessSeat] = deque()
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)
        self._idle = threading.Condition(self._lock)
        self._busy = 0
        self._thread: threading.Thread | None = None

    def add(self, seat: ProcessSeat) -> None:
        with self._lock:
            if len(self._queue) >= self.BACKLOG:
                full = True
            else:
                full = False
                self._queue.append(seat)
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name="dp-arena-reaper", daemon=True
                    )
                    self._thread.start()
                    atexit.register(self.flush)
                self._work.notify()
        if full:
            seat._finish()

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._queue:
                    self._work.wait()
                seat = self._queue.popleft()
                self._busy += 1
            try:
                seat._finish()
            except Exception:  # one seat's bad end must not stop the others'
                pass
            finally:
                with self._lock:
                    self._busy -= 1
                    if not self._queue and not self._busy:
                        self._idle.notify_all()

    def flush(self, timeout: float = 60.0) -> bool:
        """Wait until every seat handed over is closed; whether they all were."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._queue or self._busy:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._idle.wait(remaining)
        return True


REAPER = Reaper()


# The kinds of message a bot may send (``type`` left out means an action).
_BOT_MESSAGES = frozenset({"hello", "action", "error", "log"})


@dataclass(frozen=True, slots=True)
class _Unread:
    """A line that is no message: ``stray`` output (never taken for an answer) or a
    broken message (taken for the answer awaited, if any)."""

    problem: str
    stray: bool


def _instead(problem: str | None) -> str:
    return "" if problem is None else f"; instead it wrote a stray line: {problem}"


def _request_of(message: dict[str, Any]) -> int | None:
    """The request a bot's message says it answers: its ``id`` if that is an integer
    (``true`` and ``3.0`` are not)."""
    request_id = message.get("id")
    return request_id if type(request_id) is int else None


def _text(message: dict[str, Any], limit: int) -> str:
    """The ``message`` field of a bot's log or error, as printable text."""
    text = message.get("message")
    return printable(text if isinstance(text, str) else protocol.brief(text), limit)
