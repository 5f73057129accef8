"""A seat whose bot runs in its own sandboxed process and speaks the pipe protocol.

The table cannot tell a :class:`ProcessSeat` from an in-process one: every call returns
an action, ``None`` or a :class:`~dp_arena.agents.SeatFault`, never raises, and never
waits past the bot's time limits. The process is started when the seat is made (so the
bots of a table load in parallel); its hello is awaited at the first call, and a bot that
did not load answers that call with a ``LOAD_TIMEOUT`` or ``LOAD_ERROR`` fault.
"""

from __future__ import annotations

import contextlib
import re
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from dp_arena.agents.agent import HOOKS
from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.agents.seat import SeatFault
from dp_arena.engine.actions import Action
from dp_arena.engine.mixes import Mix
from dp_arena.results import FaultKind
from dp_arena.sandbox import protocol
from dp_arena.sandbox.isolation import SandboxCommand
from dp_arena.sandbox.limits import Limits
from dp_arena.sandbox.pipes import BotLog, Closed, Oversized, Pipes
from dp_arena.sandbox.reaper import REAPER
from dp_arena.sandbox.spawn import BotProcess, spawn
from dp_arena.sandbox.template import ForkedProcess
from dp_arena.text import excerpt, printable

__all__ = ["ProcessSeat", "log_path", "log_path_stem"]

# How long a bot may take to exit after its goodbye before it is killed.
EXIT_GRACE = 0.5

_T = TypeVar("_T")
_Told = TypeVar("_Told")  # what a notification tells the bot of


def log_path(log_dir: Path | None, name: str) -> Path | None:
    """A fresh log file for a bot called ``name`` in ``log_dir`` (``name.log``,
    ``name.2.log``, ... : mirrored copies of a bot each get their own). The search
    for a free name starts after the last one this process took, so a bot that sits
    down a thousand times does not try a thousand names each time."""
    if log_dir is None:
        return None
    log_dir.mkdir(parents=True, exist_ok=True)
    stem = log_path_stem(name)
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


def log_path_stem(name: str) -> str:
    """What a bot called ``name``'s log files are named by (before ``.log``)."""
    return re.sub(r"[^A-Za-z0-9_.@-]+", "_", name)[:80] or "bot"


# The index after the last log name each (folder, bot) got in this process.
_next_log: dict[tuple[str, str], int] = {}


class ProcessSeat:
    """A bot in a sandboxed process (see :mod:`dp_arena.sandbox`).

    Each call is an *exchange* with the bot (its hello, a decision, a notification),
    run by :meth:`_exchange`: the one place where what fails on the bot's pipes (its
    process ended, it stopped reading, no answer came in time) becomes the fault the
    call answers with. Every line the bot writes is taken by :meth:`_take`, the same way
    whenever it comes: the answer awaited, or a log, a late reply, an error or a stray
    line, each dealt with there."""

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
        self._wait = _Wait(strays_before=False)  # what the exchange under way has read
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
        return self._notify("begin_session", protocol.session_start, context)

    def begin_deal(self, start: DealStart) -> SeatFault | None:
        return self._notify("begin_deal", protocol.deal_start, start)

    def end_deal(self, end: DealEnd) -> SeatFault | None:
        return self._notify("end_deal", protocol.deal_end, end)

    def decide(self, observation: Observation) -> Action | Mix | SeatFault:
        fault = self._ready()
        if fault is not None:
            return fault
        self._drain()  # late replies and stray lines from earlier decisions
        self._request_id += 1
        request_id = self._request_id
        started = time.monotonic()
        deadline = started + self.limits.action_timeout + self._bank
        request = protocol.encode(protocol.act(request_id, observation))
        answer = self._exchange("act", lambda: self._ask(request, request_id, deadline))
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
        (the table is done with the seat; see :mod:`dp_arena.sandbox.reaper`)."""
        self.say_goodbye()
        REAPER.add(self._finish)

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

    # -- the exchanges ----------------------------------------------------------------

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
        """Wait for the hello until the load timeout; a bot that gives none is gone."""
        self._exchange("hello", self._hello)

    def _hello(self) -> SeatFault | None:
        """Take the bot's hello (the first message it sends but a log), or its load fault."""
        answer = self._receive(_HELLO, self._started + self.limits.load_timeout)
        if isinstance(answer, _Unread):
            reason = "instead of a hello, " if answer.oversized else "bad hello: "
            return self._fail(FaultKind.LOAD_ERROR, reason + answer.problem)
        if answer.get("type") == "error":
            return self._fail(FaultKind.LOAD_ERROR, f"could not load: {_text(answer, 400)}")
        try:
            self.bot_name = protocol.check_hello(answer)
        except protocol.ProtocolViolation as error:
            return self._fail(FaultKind.LOAD_ERROR, f"bad hello: {error}")
        self._hooks = protocol.hello_hooks(answer)
        self._loaded = True
        return None

    def _notify(
        self, hook: str, message: Callable[[_Told], dict[str, Any]], told: _Told
    ) -> SeatFault | None:
        """Tell the bot of ``told`` (the message for ``hook``), unless it said in its hello
        that it has no such hook; the fault to report, if any (including the errors and
        stray lines the bot sent since the last notification)."""
        fault = self._ready()
        if fault is not None:
            return fault
        self._drain()
        if self._hooks is None or hook in self._hooks:
            notification = message(told)
            line = protocol.encode(notification)
            deadline = time.monotonic() + self.limits.action_timeout
            fault = self._exchange(notification["type"], lambda: self._send(line, deadline))
            if fault is not None:
                return fault
        return self._pending_fault()

    def _ask(self, request: bytes, request_id: int, deadline: float) -> Action | Mix | SeatFault:
        """Send ``act`` and take its answer: the action, or the fault it is."""
        self._send(request, deadline)
        answer = self._receive(request_id, deadline, stray_limit=self.limits.message_bytes)
        if isinstance(answer, _Unread):
            return self._protocol_fault(answer.problem, request_id)
        if answer.get("type") == "error":
            # A bot may call its own answer malformed (the Python runner does, as the
            # in-process seat would); it cannot claim any other kind.
            return SeatFault(
                FaultKind.PROTOCOL if answer.get("fault") == "PROTOCOL" else FaultKind.ERROR,
                _text(answer, 500),
            )
        try:
            return protocol.reply_action(answer, expected_id=request_id)
        except protocol.ProtocolViolation as error:
            # A reply to another request (stale) leaves this one open: its own answer
            # may still come. Any other bad answer closes it.
            answers = _request_of(answer)
            stale = answers is not None and answers != request_id
            return self._protocol_fault(str(error), None if stale else request_id)

    # -- the one boundary: failures on the pipes become faults ------------------------

    def _exchange(self, what: str, exchange: Callable[[], _T]) -> _T | SeatFault:
        """Run one exchange with the bot (``what``: ``hello``, ``act`` or a notification's
        type) and turn what failed on its pipes into the fault to report, in one place:
        its process ended (:class:`~dp_arena.sandbox.pipes.Closed`), it did not take the
        message (:class:`_NotReading`), or no answer came by the deadline
        (:class:`_Silence`). A fault that ends the seat is also kept as why it is gone."""
        assert self.pipes is not None
        self._wait = _Wait(strays_before=self._stray_pending())
        try:
            return exchange()
        except Closed:
            return self._gone(what)
        except _NotReading:
            heading = "" if what == "act" else f"{what}: "
            return SeatFault(FaultKind.TIMEOUT, f"{heading}the bot is not reading its input")
        except _Silence:
            return self._silent(what)

    def _gone(self, what: str) -> SeatFault:
        """The fault of a bot whose process ended during an exchange."""
        ended = self._exit_text()
        if what == "hello":
            return self._fail(
                FaultKind.LOAD_ERROR,
                f"exited while loading{ended}" + (self._partial_text() or self._instead()),
            )
        if what == "act":
            detail = f"the bot's process ended{ended}" + (self._partial_text() or self._instead())
        else:
            detail = f"{what}: the bot's input is closed{ended}"
        self._reported_dead = True
        return self._fail(FaultKind.CRASH, detail)

    def _silent(self, what: str) -> SeatFault:
        """The fault of a wait that ended without an answer: a timeout, or, when the bot
        wrote stray lines instead, what it wrote."""
        instead = self._wait.instead
        if what == "hello":
            waited = f"no hello within the load timeout of {self.limits.load_timeout:g} s"
            if instead is None:
                return self._fail(FaultKind.LOAD_TIMEOUT, waited + self._partial_text())
            return self._fail(FaultKind.LOAD_ERROR, waited + self._instead())
        limit = self.limits.action_timeout + self._bank
        waited = f"no answer within {limit:.3g} s (action time + time bank)"
        if instead is None:
            return SeatFault(FaultKind.TIMEOUT, waited + self._partial_text())
        # What it wrote instead is the fault: its stray lines are not counted again at
        # the next notification.
        if not self._wait.strays_before:
            self._pending = [p for p in self._pending if p[0] is not FaultKind.PROTOCOL]
        return self._protocol_fault(waited + self._instead(), self._request_id)

    def _send(self, line: bytes, deadline: float) -> None:
        """Write ``line`` to the bot; :class:`_NotReading` if it did not take it by
        ``deadline``."""
        assert self.pipes is not None
        if not self.pipes.send(line, deadline):
            raise _NotReading

    # -- reading ----------------------------------------------------------------------

    def _receive(
        self, awaited: int, deadline: float, *, stray_limit: int | None = None
    ) -> dict[str, Any] | _Unread:
        """Read until the answer to ``awaited`` (a request's id, or :data:`_HELLO`) comes,
        or a broken message, which is taken for it; :class:`_Silence` if ``deadline``
        passes first. Over ``stray_limit`` bytes of stray lines meanwhile, the wait ends
        with a broken answer saying so."""
        assert self.pipes is not None
        while True:
            try:
                line = self.pipes.read_line(deadline)
            except Oversized:
                line = None
            else:
                if line is None:
                    raise _Silence
            answer = self._take(line, awaited)
            if answer is not None:
                return answer
            if stray_limit is not None and self._wait.stray_bytes > stray_limit:
                return _Unread(
                    f"over {stray_limit} bytes of stray lines while request {awaited} was"
                    f" awaited{self._instead()}",
                    stray=False,
                )

    def _drain(self) -> None:
        """Take the lines the bot sent between exchanges (at most a few message limits of
        them: a bot flooding its stdout cannot keep the dealer here). A closed pipe is
        left for the next exchange to report."""
        assert self.pipes is not None
        with contextlib.suppress(Closed):
            self.pipes.drain_lines(self._between, 4 * self.limits.message_bytes)

    def _between(self, line: bytes | None) -> None:
        self._take(line, None)

    def _take(self, line: bytes | None, awaited: int | None) -> dict[str, Any] | _Unread | None:
        """One line from the bot (``None``: one over the message limit, skipped). Returned
        if it answers what is awaited (a request's id, :data:`_HELLO`, or ``None``
        between requests): a broken message, an error about it, or anything else a bot
        may send but a log. Otherwise dealt with here: a log is kept, a late reply
        dropped (its request was already answered for), another error reported at the
        next notification, and a stray line (a message nobody asked for, between
        requests) noted for the same notification."""
        message = self._read(line)
        if isinstance(message, _Unread):
            if awaited is not None and not message.stray:
                return message
            self._stray_line(message.problem)
            if awaited is not None and line is not None:
                self._wait.stray_bytes += len(line) + 1
                self._wait.instead = self._wait.instead or message.problem
            return None
        kind = message.get("type", "action")
        if kind == "log":
            self._log_message(message)
            return None
        answers = _request_of(message)
        if kind in ("action", "error") and self._is_late(answers):
            self.log.note(f"{kind} for request {answers} dropped: it came too late")
            return None
        if kind == "error":
            if awaited == _HELLO or (awaited is not None and answers == awaited):
                return message
            self._pending.append((FaultKind.ERROR, _error_text(message)))
            return None
        if awaited is not None:
            return message
        self._stray_line(f"a message while no answer was awaited: {protocol.brief(message)}")
        return None

    def _read(self, line: bytes | None) -> dict[str, Any] | _Unread:
        """A line from the bot as a message of a kind a bot may send, or what is wrong
        with it: stray output (a line that does not start with ``{`` or ``[``, or an
        object of a type no bot sends) or a broken message (any other line, and one over
        the message limit)."""
        if line is None:
            return _Unread(
                f"a message over {self.limits.message_bytes} bytes", stray=False, oversized=True
            )
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

    # -- what is reported -------------------------------------------------------------

    def _kill(self) -> None:
        assert self.sandbox is not None
        self.sandbox.kill()

    def _fail(self, kind: FaultKind, detail: str) -> SeatFault:
        """The bot is gone, for ``kind`` and ``detail`` (with the end of its stderr, for a
        load error or a crash): kill what is left of it and keep the fault."""
        tail = self.log.tail_text(300)
        self.log.note(f"{kind.value}: {detail}")
        if tail and kind in (FaultKind.LOAD_ERROR, FaultKind.CRASH):
            detail += f"; stderr ends: {tail}"
        self._dead = SeatFault(kind, detail[:1000])
        if self.process is not None:
            self._kill()
        return self._dead

    def _exit_text(self) -> str:
        assert self.process is not None and self.sandbox is not None
        try:
            code = self.process.wait(2)
        except subprocess.TimeoutExpired:
            return ""
        verdict = self.sandbox.verdict or self.sandbox.setup_error
        over = f": {verdict}" if verdict else ""
        if code < 0:
            try:
                return f" (killed by {signal.Signals(-code).name}{over})"
            except ValueError:
                return f" (killed by signal {-code}{over})"
        if code > 128 and not self.sandbox.forked and self.command.argv[0] in ("bwrap", "unshare"):
            # The sandbox's launcher reports a bot killed by signal N as status 128 + N (a
            # forked seat's status is the bot's own).
            try:
                return f" (killed by {signal.Signals(code - 128).name}{over})"
            except ValueError:
                pass
        return f" (exit status {code}{over})"

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

    def _instead(self) -> str:
        """What the bot wrote instead of an answer in the exchange under way, if anything."""
        instead = self._wait.instead
        return "" if instead is None else f"; instead it wrote a stray line: {instead}"

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

    def _protocol_fault(self, detail: str, closing: int | None) -> SeatFault:
        """A PROTOCOL fault for a decision; ``closing``: the request it ends, whose
        answer, if one still comes, is dropped as a late reply."""
        if closing is not None:
            self._given_up.add(closing)
        self.log.note(f"PROTOCOL: {detail}")
        return SeatFault(FaultKind.PROTOCOL, detail)


# The kinds of message a bot may send (``type`` left out means an action).
_BOT_MESSAGES = frozenset({"hello", "action", "error", "log"})
# What a wait for the hello awaits, where a decision's awaits its request's id (from 1).
_HELLO = 0


class _NotReading(Exception):
    """The bot did not take a message before its deadline."""


class _Silence(Exception):
    """No answer came before the deadline."""


@dataclass(slots=True)
class _Wait:
    """What the exchange under way has read: whether stray lines were pending before it,
    the first stray line since (what the bot wrote instead of an answer) and the bytes
    of stray lines."""

    strays_before: bool
    instead: str | None = None
    stray_bytes: int = 0


@dataclass(frozen=True, slots=True)
class _Unread:
    """A line that is no message: ``stray`` output (never taken for an answer) or a
    broken message (taken for the answer awaited, if any), ``oversized`` for one over
    the message limit."""

    problem: str
    stray: bool
    oversized: bool = False


def _request_of(message: dict[str, Any]) -> int | None:
    """The request a bot's message says it answers: its ``id`` if that is an integer
    (``true`` and ``3.0`` are not)."""
    request_id = message.get("id")
    return request_id if type(request_id) is int else None


def _error_text(message: dict[str, Any]) -> str:
    """An error the bot sent about no request, as its fault says it. One that names the
    hook it came from (the Python runner's, worded as the in-process seat words a hook's
    fault) stands as it is, so one bug reads the same in this process and sandboxed."""
    if message.get("about") in HOOKS:
        return _text(message, 500)
    return f"error: {_text(message, 300)}"


def _text(message: dict[str, Any], limit: int) -> str:
    """The ``message`` field of a bot's log or error, as printable text."""
    text = message.get("message")
    return printable(text if isinstance(text, str) else protocol.brief(text), limit)
