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

__all__ = ["ProcessSeat", "log_path"]

# How long a bot may take to exit after its goodbye before it is killed.
EXIT_GRACE = 0.5


def log_path(log_dir: Path | None, name: str) -> Path | None:
    """A fresh log file for a bot called ``name`` in ``log_dir`` (``name.log``,
    ``name.2.log``, ... : mirrored copies of a bot each get their own)."""
    if log_dir is None:
        return None
    log_dir.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^A-Za-z0-9_.@-]+", "_", name)[:80] or "bot"
    for index in range(1, 10_000):
        path = log_dir / (f"{stem}.log" if index == 1 else f"{stem}.{index}.log")
        try:
            with open(path, "xb"):
                return path
        except FileExistsError:
            continue
    raise OSError(f"no free log file name for {name!r} in {log_dir}")


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
        self._pending: list[str] = []  # errors and stray messages, reported at the next hook
        self._request_id = 0
        self._given_up: set[int] = set()  # requests that timed out: their late replies are dropped
        self._bank = limits.time_bank
        self._started = time.monotonic()
        self.decision_seconds: list[float] = []
        self.process: subprocess.Popen[bytes] | None = None
        self.sandbox: BotProcess | None = None
        self.pipes: Pipes | None = None
        try:
            self.sandbox = spawn(command, limits)
            self.process = self.sandbox.process
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
        return self._notify(protocol.session_start(context))

    def begin_deal(self, start: DealStart) -> SeatFault | None:
        return self._notify(protocol.deal_start(start))

    def end_deal(self, end: DealEnd) -> SeatFault | None:
        return self._notify(protocol.deal_end(end))

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

    def close(self) -> None:
        """Say goodbye, give the bot a moment to exit, then kill whatever is left of it."""
        process = self.process
        if process is not None and self.pipes is not None:
            # A bot still busy with a request it timed out on would not read the
            # goodbye: kill it at once rather than wait for nothing.
            stuck = self._request_id in self._given_up
            if process.poll() is None and self._dead is None and not stuck:
                with contextlib.suppress(Closed):
                    self.pipes.send(protocol.encode(protocol.goodbye()), time.monotonic() + 0.1)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(EXIT_GRACE)
            self._kill()
            self.pipes.drain_stderr()
            self.pipes.close()
            for stream in (process.stdin, process.stdout, process.stderr):
                if stream is not None:
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
        assert self.pipes is not None
        deadline = self._started + self.limits.load_timeout
        while True:
            try:
                line = self.pipes.read_line(deadline)
            except Oversized as error:
                self._fail(FaultKind.LOAD_ERROR, f"instead of a hello, {error}")
                return
            except Closed:
                self._fail(FaultKind.LOAD_ERROR, f"exited while loading{self._exit_text()}")
                return
            if line is None:
                self._fail(
                    FaultKind.LOAD_TIMEOUT,
                    f"no hello within the load timeout of {self.limits.load_timeout:g} s",
                )
                return
            try:
                message = protocol.decode(line)
                if message.get("type") == "log":
                    self.log.note(f"log: {str(message.get('message'))[:1000]}")
                    continue
                if message.get("type") == "error":
                    self._fail(
                        FaultKind.LOAD_ERROR, f"could not load: {str(message.get('message'))[:400]}"
                    )
                    return
                self.bot_name = protocol.check_hello(message)
            except protocol.ProtocolViolation as error:
                self._fail(FaultKind.LOAD_ERROR, f"bad hello: {error}")
                return
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
        over = f": {verdict}" if verdict else ""
        if code < 0:
            try:
                return f" (killed by {signal.Signals(-code).name}{over})"
            except ValueError:
                return f" (killed by signal {-code}{over})"
        if code > 128 and self.command.argv[0] in ("bwrap", "unshare"):
            # The sandbox's launcher reports a bot killed by signal N as status 128 + N.
            try:
                return f" (killed by {signal.Signals(code - 128).name}{over})"
            except ValueError:
                pass
        return f" (exit status {code}{over})"

    def _notify(self, message: dict[str, Any]) -> SeatFault | None:
        """Send a one-way message; the fault to report, if any (including errors the
        bot reported since the last call)."""
        fault = self._ready()
        if fault is not None:
            return fault
        assert self.pipes is not None
        self._drain()
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
            if any(problem.startswith("protocol:") for problem in problems)
            else FaultKind.ERROR
        )
        return SeatFault(kind, "; ".join(problems)[:1000])

    def _drain(self) -> None:
        assert self.pipes is not None
        with contextlib.suppress(Closed):  # the next read reports the crash
            self.pipes.drain_lines(self._stray, 4 * self.limits.message_bytes)

    def _stray(self, line: bytes | None) -> None:
        """A line the bot sent outside an answer: a log, an error from a hook, a late reply
        to a timed-out request, or a protocol breach to report at the next hook."""
        if line is None:
            self._pending_once(f"protocol: a message over {self.limits.message_bytes} bytes")
            return
        try:
            message = protocol.decode(line)
        except protocol.ProtocolViolation as error:
            self._pending_once(f"protocol: {error}")
            return
        kind = message.get("type", "action")
        if kind == "log":
            self.log.note(f"log: {str(message.get('message'))[:1000]}")
        elif kind == "error":
            self._pending.append(f"error: {str(message.get('message'))[:300]}")
        elif message.get("id") in self._given_up:
            self.log.note(f"late reply to request {message.get('id')} dropped")
        else:
            self._pending_once(f"protocol: unexpected message {line[:120]!r}")

    def _pending_once(self, problem: str) -> None:
        # A flood of garbage is one fault, not thousands.
        if not any(existing.startswith("protocol:") for existing in self._pending):
            self._pending.append(problem)
            self.log.note(problem)

    def _ask(self, request: bytes, request_id: int, deadline: float) -> Action | SeatFault:
        assert self.pipes is not None
        try:
            if not self.pipes.send(request, deadline):
                return SeatFault(FaultKind.TIMEOUT, "the bot is not reading its input")
            while True:
                try:
                    line = self.pipes.read_line(deadline)
                except Oversized as error:
                    return self._protocol_fault(str(error))
                if line is None:
                    limit = self.limits.action_timeout + self._bank
                    return SeatFault(
                        FaultKind.TIMEOUT,
                        f"no answer within {limit:.3g} s (action time + time bank)",
                    )
                try:
                    message = protocol.decode(line)
                except protocol.ProtocolViolation as error:
                    return self._protocol_fault(str(error))
                kind = message.get("type", "action")
                if kind == "log":
                    self.log.note(f"log: {str(message.get('message'))[:1000]}")
                    continue
                if kind == "error":
                    if message.get("id") == request_id:
                        # A bot may call its own answer malformed (the Python runner does,
                        # as the in-process seat would); it cannot claim any other kind.
                        kind = (
                            FaultKind.PROTOCOL
                            if message.get("fault") == "PROTOCOL"
                            else FaultKind.ERROR
                        )
                        return SeatFault(kind, str(message.get("message"))[:500])
                    self._stray(line)  # an error from a hook: reported at the next hook
                    continue
                if kind == "action" and message.get("id") in self._given_up:
                    self.log.note(f"late reply to request {message.get('id')} dropped")
                    continue
                try:
                    return protocol.reply_action(message, expected_id=request_id)
                except protocol.ProtocolViolation as error:
                    return self._protocol_fault(str(error))
        except Closed:
            self._fail(FaultKind.CRASH, f"the bot's process ended{self._exit_text()}")
            self._reported_dead = True
            assert self._dead is not None
            return self._dead

    def _protocol_fault(self, detail: str) -> SeatFault:
        self.log.note(f"PROTOCOL: {detail}")
        return SeatFault(FaultKind.PROTOCOL, detail)
