"""The conversation between the dealer and one sandboxed bot over its pipes: each
exchange (its hello, a decision, a notification) and every line the bot writes.

:meth:`BotChannel.exchange` is the one place where what fails on the bot's pipes becomes
the fault the seat's call answers with, as httpx's ``map_httpcore_exceptions`` maps
transport errors: a process that ended is a ``CRASH`` (a ``LOAD_ERROR`` while loading),
a bot that stops reading or gives no answer in time a ``TIMEOUT`` (``LOAD_TIMEOUT``), or
a ``PROTOCOL`` fault quoting what it wrote instead. Every line the bot writes is taken
by one method (:meth:`BotChannel._take`), the same way whenever it comes. How the bot's
process started, how it ended and what is left of it are its lifecycle's
(:class:`~dp_arena.sandbox.dealer.lifecycle.BotLifecycle`), which the channel asks
through :class:`Ends`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from dp_arena.agents.agent import HOOKS
from dp_arena.agents.observation import Observation
from dp_arena.agents.seat import SeatFault
from dp_arena.engine.actions import Action
from dp_arena.engine.mixes import Mix
from dp_arena.results import FaultKind
from dp_arena.sandbox import protocol
from dp_arena.sandbox.dealer.pipes import BotLog, Closed, Oversized, Pipes
from dp_arena.sandbox.limits import Limits
from dp_arena.text import excerpt, printable

__all__ = ["BotChannel", "Ends"]

_T = TypeVar("_T")
_Told = TypeVar("_Told")  # what a notification tells the bot of


class Ends(Protocol):
    """What the channel asks of the bot's lifecycle when an exchange finds it gone."""

    def exit_text(self) -> str:
        """How the bot's process ended, as words to add to a fault (or ``""``)."""
        ...

    def end(self, fault: SeatFault, *, reported: bool) -> None:
        """The bot is gone for ``fault``: keep it and kill what is left of the bot."""
        ...


class BotChannel:
    """The exchanges with one bot over its ``pipes`` (see the module docstring).

    Each call is an *exchange* run by :meth:`exchange`; every line the bot writes is
    taken by :meth:`_take`, the same way whenever it comes: the answer awaited, or a
    log, a late reply, an error or a stray line, each dealt with there."""

    def __init__(self, pipes: Pipes | None, log: BotLog, limits: Limits, ends: Ends) -> None:
        self.pipes = pipes
        self.log = log
        self.limits = limits
        self._ends = ends
        self.bot_name = ""  # what the bot calls itself in its hello
        self.hooks: frozenset[str] | None = None  # the hooks the bot has, if it said
        # Errors and stray lines, reported at the next notification: (kind, what happened).
        self._pending: list[tuple[FaultKind, str]] = []
        self.request_id = 0
        self._given_up: set[int] = set()  # requests that timed out: their late replies are dropped
        self._wait = _Wait(strays_before=False)  # what the exchange under way has read

    # -- the exchanges ----------------------------------------------------------------

    def greet(self, name: str, deadline: float) -> None:
        """Send the dealer's hello (the bot's name and limits); a bot already gone is left
        for the wait for its hello to report."""
        assert self.pipes is not None
        hello = protocol.encode(protocol.hello(name, self.limits.to_json()))
        with contextlib.suppress(Closed):
            self.pipes.send(hello, deadline)

    def hello(self, deadline: float) -> SeatFault | None:
        """Wait for the bot's hello until ``deadline``: ``None`` once it came, else the
        load fault (a bot that gives none is gone)."""
        return self.exchange("hello", lambda: self._hello(deadline))

    def ask(
        self, observation: Observation, deadline: float, allowed: float
    ) -> Action | Mix | SeatFault:
        """Ask the bot to act on ``observation`` by ``deadline`` (``allowed`` seconds from
        now: the action time and what is left of the time bank); its action, or the
        fault. A request that timed out is given up: its answer, if it comes, is dropped."""
        self.request_id += 1
        request_id = self.request_id
        request = protocol.encode(protocol.act(request_id, observation))
        answer = self.exchange("act", lambda: self._ask(request, request_id, deadline), allowed)
        if isinstance(answer, SeatFault) and answer.kind is FaultKind.TIMEOUT:
            self._given_up.add(request_id)
        return answer

    def notify(
        self, hook: str, message: Callable[[_Told], dict[str, Any]], told: _Told
    ) -> SeatFault | None:
        """Tell the bot of ``told`` (the message for ``hook``), unless it said in its hello
        that it has no such hook; the fault to report, if any (including the errors and
        stray lines the bot sent since the last notification)."""
        self.drain()
        if self.hooks is None or hook in self.hooks:
            notification = message(told)
            line = protocol.encode(notification)
            deadline = time.monotonic() + self.limits.action_timeout
            fault = self.exchange(notification["type"], lambda: self._send(line, deadline))
            if fault is not None:
                return fault
        return self._pending_fault()

    @property
    def stuck(self) -> bool:
        """Whether the bot may still be busy with the last request, which timed out (it
        would not read a goodbye)."""
        return self.request_id in self._given_up

    def _hello(self, deadline: float) -> SeatFault | None:
        """Take the bot's hello (the first message it sends but a log), or its load fault."""
        answer = self._receive(_HELLO, deadline)
        if isinstance(answer, _Unread):
            reason = "instead of a hello, " if answer.oversized else "bad hello: "
            return self._fail(FaultKind.LOAD_ERROR, reason + answer.problem)
        if answer.get("type") == "error":
            return self._fail(FaultKind.LOAD_ERROR, f"could not load: {_text(answer, 400)}")
        try:
            self.bot_name = protocol.check_hello(answer)
        except protocol.ProtocolViolation as error:
            return self._fail(FaultKind.LOAD_ERROR, f"bad hello: {error}")
        self.hooks = protocol.hello_hooks(answer)
        return None

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

    def exchange(
        self, what: str, exchange: Callable[[], _T], allowed: float = 0.0
    ) -> _T | SeatFault:
        """Run one exchange with the bot (``what``: ``hello``, ``act`` or a notification's
        type) and turn what failed on its pipes into the fault to report, in one place:
        its process ended (:class:`~dp_arena.sandbox.dealer.pipes.Closed`), it did not take the
        message (:class:`_NotReading`), or no answer came by the deadline
        (:class:`_Silence`). A fault that ends the seat is also kept as why it is gone."""
        assert self.pipes is not None
        self._wait = _Wait(strays_before=self._stray_pending(), allowed=allowed)
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
        ended = self._ends.exit_text()
        if what == "hello":
            return self._fail(
                FaultKind.LOAD_ERROR,
                f"exited while loading{ended}" + (self._partial_text() or self._instead()),
            )
        if what == "act":
            detail = f"the bot's process ended{ended}" + (self._partial_text() or self._instead())
        else:
            detail = f"{what}: the bot's input is closed{ended}"
        return self._fail(FaultKind.CRASH, detail, reported=True)

    def _silent(self, what: str) -> SeatFault:
        """The fault of a wait that ended without an answer: a timeout, or, when the bot
        wrote stray lines instead, what it wrote."""
        instead = self._wait.instead
        if what == "hello":
            waited = f"no hello within the load timeout of {self.limits.load_timeout:g} s"
            if instead is None:
                return self._fail(FaultKind.LOAD_TIMEOUT, waited + self._partial_text())
            return self._fail(FaultKind.LOAD_ERROR, waited + self._instead())
        waited = f"no answer within {self._wait.allowed:.3g} s (action time + time bank)"
        if instead is None:
            return SeatFault(FaultKind.TIMEOUT, waited + self._partial_text())
        # What it wrote instead is the fault: its stray lines are not counted again at
        # the next notification.
        if not self._wait.strays_before:
            self._pending = [p for p in self._pending if p[0] is not FaultKind.PROTOCOL]
        return self._protocol_fault(waited + self._instead(), self.request_id)

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

    def drain(self) -> None:
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

    def _fail(self, kind: FaultKind, detail: str, *, reported: bool = False) -> SeatFault:
        """The bot is gone, for ``kind`` and ``detail`` (with the end of its stderr, for a
        load error or a crash): the seat's lifecycle keeps the fault and kills what is
        left of the bot (``reported``: the fault is reported now, once and for all)."""
        tail = self.log.tail_text(300)
        self.log.note(f"{kind.value}: {detail}")
        if tail and kind in (FaultKind.LOAD_ERROR, FaultKind.CRASH):
            detail += f"; stderr ends: {tail}"
        fault = SeatFault(kind, detail[:1000])
        self._ends.end(fault, reported=reported)
        return fault

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
    of stray lines; and for a decision, the seconds it was allowed."""

    strays_before: bool
    instead: str | None = None
    stray_bytes: int = 0
    allowed: float = 0.0


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
