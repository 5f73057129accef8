"""A seat whose bot runs in its own sandboxed process and speaks the pipe protocol.

The table cannot tell a :class:`ProcessSeat` from an in-process one: every call returns
an action, ``None`` or a :class:`~dp_arena.agents.SeatFault`, never raises, and never
waits past the bot's time limits. The process is started when the seat is made (so the
bots of a table load in parallel); its hello is awaited at the first call, and a bot that
did not load answers that call with a ``LOAD_TIMEOUT`` or ``LOAD_ERROR`` fault.

A seat is two halves: its :class:`~dp_arena.sandbox.dealer.lifecycle.BotLifecycle` (the
bot's process, from its start to its end, and why it is gone) and its
:class:`~dp_arena.sandbox.dealer.channel.BotChannel` (each exchange with the bot, and the
one place where what fails on its pipes becomes a fault). The seat itself keeps what
the table's calls need besides: whether the bot has loaded, and its time bank.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.agents.seat import SeatFault
from dp_arena.engine.actions import Action
from dp_arena.engine.mixes import Mix
from dp_arena.results import FaultKind
from dp_arena.sandbox import protocol
from dp_arena.sandbox.confinement.command import SandboxCommand
from dp_arena.sandbox.dealer.channel import BotChannel
from dp_arena.sandbox.dealer.forked import ForkedProcess
from dp_arena.sandbox.dealer.lifecycle import EXIT_GRACE, BotLifecycle
from dp_arena.sandbox.dealer.pipes import BotLog, Pipes
from dp_arena.sandbox.dealer.reaper import REAPER
from dp_arena.sandbox.dealer.spawn import BotProcess
from dp_arena.sandbox.limits import Limits

__all__ = ["EXIT_GRACE", "ProcessSeat", "log_path", "log_path_stem"]

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
    """A bot in a sandboxed process (see :mod:`dp_arena.sandbox`): its lifecycle and its
    channel (see the module docstring)."""

    def __init__(
        self, command: SandboxCommand, *, name: str, limits: Limits, log_dir: Path | None = None
    ) -> None:
        self.name = name
        self.limits = limits
        self.log = BotLog(log_path(log_dir, name), limits.log_bytes)
        self._started = time.monotonic()
        self._loaded = False
        self._bank = limits.time_bank
        self.decision_seconds: list[float] = []
        self.lifecycle = BotLifecycle(command, limits=limits, log=self.log)
        self.channel = BotChannel(self.lifecycle.pipes, self.log, limits, self.lifecycle)
        if self.lifecycle.pipes is not None:
            self.channel.greet(name, self._started + limits.load_timeout)

    # What the lifecycle and the channel hold, as the seat's own (tests and tools read them).

    @property
    def command(self) -> SandboxCommand:
        return self.lifecycle.command

    @property
    def process(self) -> subprocess.Popen[bytes] | ForkedProcess | None:
        return self.lifecycle.process

    @property
    def sandbox(self) -> BotProcess | None:
        return self.lifecycle.sandbox

    @property
    def pipes(self) -> Pipes | None:
        return self.lifecycle.pipes

    @pipes.setter
    def pipes(self, pipes: Pipes | None) -> None:
        self.lifecycle.pipes = self.channel.pipes = pipes

    @property
    def bot_name(self) -> str:
        """What the bot calls itself in its hello."""
        return self.channel.bot_name

    # -- the Seat protocol ------------------------------------------------------------

    @property
    def active(self) -> bool:
        """True until the seat has reported that its bot is gone (failed load or crash)."""
        return not self.lifecycle.reported_dead

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
        self.channel.drain()  # late replies and stray lines from earlier decisions
        started = time.monotonic()
        allowed = self.limits.action_timeout + self._bank
        answer = self.channel.ask(observation, started + allowed, allowed)
        elapsed = time.monotonic() - started
        self.decision_seconds.append(elapsed)
        if isinstance(answer, SeatFault) and answer.kind is FaultKind.TIMEOUT:
            self._bank = 0.0
        elif elapsed > self.limits.action_timeout:
            self._bank = max(0.0, self._bank - (elapsed - self.limits.action_timeout))
        return answer

    def wait_loaded(self) -> SeatFault | None:
        """Wait for the bot's hello (at most the load timeout); the load fault, if any."""
        if self.lifecycle.dead is None and not self._loaded:
            self._await_hello()
        return self.lifecycle.dead if not self._loaded else None

    def say_goodbye(self) -> bool:
        """Tell the bot the session is over, without waiting for it to exit (so that the
        bots of a table exit side by side); whether it was told. :meth:`close` ends it."""
        return self.lifecycle.say_goodbye(stuck=self.channel.stuck)

    def close(self) -> None:
        """Say goodbye, give the bot a moment to exit, then kill whatever is left of it."""
        self.say_goodbye()
        self.lifecycle.finish()

    def close_later(self) -> None:
        """Say goodbye now and leave the rest of :meth:`close` to the reaper's thread
        (the table is done with the seat; see :mod:`dp_arena.sandbox.dealer.reaper`)."""
        self.say_goodbye()
        REAPER.add(self.lifecycle.finish)

    # -- before each call -------------------------------------------------------------

    def _ready(self) -> SeatFault | None:
        """None if the bot is loaded and alive; otherwise the fault to report, once in
        full and afterwards as a reminder."""
        lifecycle = self.lifecycle
        if lifecycle.dead is None and not self._loaded:
            self._await_hello()
        if lifecycle.dead is None:
            return None
        if not lifecycle.reported_dead:
            lifecycle.reported_dead = True
            return lifecycle.dead
        return SeatFault(lifecycle.dead.kind, f"not running ({lifecycle.dead.detail[:100]})")

    def _await_hello(self) -> None:
        """Wait for the hello until the load timeout; a bot that gives none is gone."""
        fault = self.channel.hello(self._started + self.limits.load_timeout)
        self._loaded = fault is None

    def _notify(
        self, hook: str, message: Callable[[_Told], dict[str, Any]], told: _Told
    ) -> SeatFault | None:
        """Tell the bot of ``told`` through the channel, if it is loaded and alive."""
        fault = self._ready()
        if fault is not None:
            return fault
        return self.channel.notify(hook, message, told)
