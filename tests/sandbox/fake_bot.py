"""A bot double for the seat's message handling: real pipes, a thread for the bot.

:func:`seat_with_fake_bot` gives a :class:`~dp_arena.sandbox.ProcessSeat` whose pipes
lead to a :class:`FakeBot` in this process instead of a program: the seat's own process
is a placeholder (``true``) that has exited before the first message, so everything the
seat reads comes from the script. The script answers each message the dealer sends
(the hello first) with chunks of bytes, written to the seat's stdout or stderr as a bot
would, or :data:`EOF` to close both. Hundreds of byte streams play in seconds, where a
bot program per stream would take a process start each.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from dp_arena.agents import DealEnd, DealStart, SessionContext, observe
from dp_arena.agents.observation import Observation
from dp_arena.engine import Action, Betting, TableRules, deck_for, new_hand
from dp_arena.sandbox import ProcessSeat
from dp_arena.sandbox.confinement.command import SandboxCommand
from dp_arena.sandbox.dealer.pipes import Pipes
from dp_arena.sandbox.limits import Limits


@dataclass(frozen=True)
class Stderr:
    """Bytes for the bot's stderr."""

    data: bytes


EOF = object()  # close the bot's stdout and stderr, as a bot that exits does

Chunk = bytes | Stderr | object
Script = Callable[[dict[str, Any]], Sequence[Chunk]]


class FakeBot:
    """The bot's end of three pipes, played by a thread that answers each message from
    the dealer with what ``script`` returns for it."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.stdin_write: int
        self.stdout_read: int
        self.stderr_read: int
        stdin_read, self.stdin_write = os.pipe()
        self.stdout_read, stdout_write = os.pipe()
        self.stderr_read, stderr_write = os.pipe()
        # Room for everything one answer writes, so that the bot has written it all by
        # the time it takes the next message, as a bot program's writes would be done.
        with contextlib.suppress(OSError):
            fcntl.fcntl(stdout_write, fcntl.F_SETPIPE_SZ, 1 << 20)
        # The bot's own ends; None once closed (a closed number may be reused at once).
        self.stdin_read: int | None = stdin_read
        self.stdout_write: int | None = stdout_write
        self.stderr_write: int | None = stderr_write
        self.received: list[dict[str, Any]] = []
        self.handled = 0  # messages answered so far (the hello included)
        self.error: Exception | None = None
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        try:
            self._answer({"type": "hello"})
            assert self.stdin_read is not None
            with os.fdopen(self.stdin_read, "rb", closefd=False) as stdin:
                for line in stdin:
                    message = json.loads(line)
                    self.received.append(message)
                    if not self._answer(message):
                        break
        except OSError:
            pass  # the seat closed its ends: the bot is gone
        except Exception as error:  # noqa: BLE001 - a bug in the script: the test must hear of it
            self.error = error
        finally:
            self._close_output()
            self._close("stdin_read")
            with self._changed:
                self.handled = 10**9  # nothing more will come: nobody need wait
                self._changed.notify_all()

    def _answer(self, message: dict[str, Any]) -> bool:
        for chunk in self.script(message):
            if chunk is EOF:  # the bot exits: its output ends, its input is closed
                self._close_output()
                return False
            if isinstance(chunk, Stderr):
                _write_all(self.stderr_write, chunk.data)
            else:
                assert isinstance(chunk, bytes)
                _write_all(self.stdout_write, chunk)
        with self._changed:
            self.handled += 1
            self._changed.notify_all()
        return True

    def _close_output(self) -> None:
        self._close("stdout_write")
        self._close("stderr_write")

    def _close(self, name: str) -> None:
        fd = getattr(self, name)
        if fd is not None:
            setattr(self, name, None)
            with contextlib.suppress(OSError):
                os.close(fd)

    def settle(self, messages: int, timeout: float = 10.0) -> None:
        """Wait until the bot has answered ``messages`` messages (the hello included)."""
        with self._changed:
            self._changed.wait_for(lambda: self.handled >= messages, timeout)

    def finish(self) -> None:
        """After the seat is closed: end the thread and close the bot's ends."""
        self._thread.join(30)
        assert not self._thread.is_alive(), "the fake bot is stuck"
        if self.error is not None:
            raise self.error


def _write_all(fd: int | None, data: bytes) -> None:
    if fd is None:
        raise OSError("closed")
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


@contextlib.contextmanager
def seat_with_fake_bot(script: Script, limits: Limits) -> Iterator[tuple[ProcessSeat, FakeBot]]:
    """A seat talking to a :class:`FakeBot` playing ``script``; closed on exit."""
    placeholder = SandboxCommand(
        argv=("true",), env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, cwd="/", uid=None
    )
    seat = ProcessSeat(placeholder, name="fake", limits=limits)
    assert seat.process is not None and seat.pipes is not None
    seat.process.wait(10)
    # The placeholder's pipes stay open until the seat closes its process's streams.
    bot = FakeBot(script)
    seat.pipes = Pipes(
        bot.stdin_write,
        bot.stdout_read,
        bot.stderr_read,
        message_bytes=limits.message_bytes,
        log=seat.log,
    )
    bot.start()
    try:
        yield seat, bot
    finally:
        seat.close()  # closes the seat's ends of the pipes
        bot.finish()


# -- what the dealer sends ---------------------------------------------------------------

_RULES = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)


def _one_hand() -> tuple[Observation, DealStart, DealEnd]:
    state = new_hand(_RULES, deck_for(5, 0, 0, 0), button=0)
    assert state.actor is not None
    seat = state.actor
    context = SessionContext(event="fuzz")
    observation = observe(state, seat, context)
    hole = state.hole_cards[seat]
    assert hole is not None
    start = DealStart(seat, 2, 0, hole, context)
    while state.actor is not None:
        legal = state.legal_actions()
        state.apply(Action.call() if legal.can_call else Action.check())
    assert state.payoffs is not None
    end = DealEnd(
        seat,
        state.payoffs[seat],
        state.payoffs,
        state.board,
        (None, None),
        tuple(state.history),
        context,
    )
    return observation, start, end


OBSERVATION, DEAL_START, DEAL_END = _one_hand()
