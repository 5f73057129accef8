"""A sandboxed bot's process from its start to its end: the lifecycle half of a
:class:`~dp_arena.sandbox.dealer.process.ProcessSeat` (its
:class:`~dp_arena.sandbox.dealer.channel.BotChannel` is the other).

The process is started when the lifecycle is made (so the bots of a table load in
parallel), in its sandbox with its budget (:mod:`~dp_arena.sandbox.dealer.spawn`); it
is told goodbye, given a moment to exit, and killed with whatever it left, once; and
the lifecycle keeps why the bot is gone, once it is.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time

from dp_arena.agents.seat import SeatFault
from dp_arena.results import FaultKind
from dp_arena.sandbox import protocol
from dp_arena.sandbox.confinement.command import SandboxCommand
from dp_arena.sandbox.dealer.forked import ForkedProcess
from dp_arena.sandbox.dealer.pipes import BotLog, Closed, Pipes
from dp_arena.sandbox.dealer.spawn import BotProcess, spawn
from dp_arena.sandbox.limits import Limits

__all__ = ["EXIT_GRACE", "BotLifecycle"]

# How long a bot may take to exit after its goodbye before it is killed.
EXIT_GRACE = 0.5


class BotLifecycle:
    """One bot's process, from :func:`~dp_arena.sandbox.dealer.spawn.spawn` to
    :meth:`finish`, and ``dead``: why the bot is gone (``None`` while it is not)."""

    def __init__(self, command: SandboxCommand, *, limits: Limits, log: BotLog) -> None:
        self.command = command
        self.log = log
        self.dead: SeatFault | None = None
        self.reported_dead = False  # the seat has reported why (it is then inactive)
        self.goodbye_sent = False
        self.process: subprocess.Popen[bytes] | ForkedProcess | None = None
        self.sandbox: BotProcess | None = None
        self.pipes: Pipes | None = None
        try:
            self.sandbox = spawn(command, limits)
            self.process = self.sandbox.process
            self.command = self.sandbox.command  # a spare made ahead has its own uid
        except OSError as error:
            self.dead = SeatFault(FaultKind.LOAD_ERROR, f"cannot start {command.argv[0]}: {error}")
            return
        assert self.process.stdin and self.process.stdout and self.process.stderr
        # The Popen file objects stay open but unused: all I/O goes through the raw fds.
        self.pipes = Pipes(
            self.process.stdin.fileno(),
            self.process.stdout.fileno(),
            self.process.stderr.fileno(),
            message_bytes=limits.message_bytes,
            log=log,
        )

    def end(self, fault: SeatFault, *, reported: bool) -> None:
        """The bot is gone for ``fault`` (``reported``: the seat reports it now): keep
        it, and kill what is left of the bot."""
        self.dead = fault
        self.reported_dead = self.reported_dead or reported
        if self.process is not None:
            self.kill()

    def say_goodbye(self, *, stuck: bool) -> bool:
        """Tell the bot the session is over, without waiting for it to exit; whether it
        was told. A bot ``stuck`` with a request it timed out on would not read the
        goodbye: it is killed at :meth:`finish` rather than waited for."""
        process = self.process
        if self.goodbye_sent or process is None or self.pipes is None:
            return self.goodbye_sent
        if process.poll() is None and self.dead is None and not stuck:
            with contextlib.suppress(Closed):
                self.pipes.send(protocol.encode(protocol.goodbye()), time.monotonic() + 0.1)
                self.goodbye_sent = True
        return self.goodbye_sent

    def finish(self) -> None:
        """The end of the bot, after its goodbye: the grace, the kill, the logs."""
        process = self.process
        if process is not None and self.pipes is not None:
            if self.goodbye_sent:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(EXIT_GRACE)
            self.kill()
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
        if self.dead is None:
            self.dead = SeatFault(FaultKind.CRASH, "closed")

    def kill(self) -> None:
        assert self.sandbox is not None
        self.sandbox.kill()

    def exit_text(self) -> str:
        """How the bot's process ended (its status, the signal, what its budget said), as
        words to add to a fault; ``""`` if it has not ended within two seconds."""
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

    def __del__(self) -> None:  # a seat nobody closed must still not leave a process behind
        if self.sandbox is not None and self.sandbox.process.returncode is None:
            with contextlib.suppress(Exception):
                self.sandbox.kill()
                self.sandbox.release()
