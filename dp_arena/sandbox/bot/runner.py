"""The Python bot runner: hosts an untrusted Python bot class behind the pipe protocol.

Run inside the sandbox as ``python -I -m dp_arena.sandbox.bot.runner FILE.py:Class`` (or
``package.module:Class``, with ``--path DIR`` put on ``sys.path``). It answers the
dealer's hello once the bot is loaded, then plays the bot through an in-process seat
(:class:`~dp_arena.agents.InProcessSeat`) for the messages of
:mod:`dp_arena.sandbox.protocol`: the seat calls the bot's hooks and ``act``, and each
fault it reports goes back as an ``error`` message, worded as it would be in-process.
The bot's own ``print`` output goes to stderr (its log): stdout carries only the protocol.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any, BinaryIO

# Imported with the package already (dp_arena.sandbox seats bots): nothing more to load.
from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.agents.seat import InProcessSeat, SeatFault, describe_error
from dp_arena.engine.mixes import Mix
from dp_arena.results import FaultKind

__all__ = ["main"]


class _Host:
    def __init__(self, output: BinaryIO) -> None:
        from dp_arena.sandbox import protocol

        self.protocol = protocol
        self.output = output

    def send(self, message: dict[str, Any]) -> bool:
        """Write one message; False if it cannot be encoded (an integer too long to
        write, say), in which case nothing is written."""
        try:
            line = self.protocol.encode(message)
        except ValueError:
            return False
        self.output.write(line)
        self.output.flush()
        return True

    def error(self, message: str, **extra: Any) -> None:
        self.send({"type": "error", "message": message, **extra})

    def fault(self, fault: SeatFault, **extra: Any) -> None:
        """The seat's fault as an ``error``: one the seat calls malformed (an answer that
        is no action) says so, for the dealer to report it as the same kind."""
        if fault.kind is FaultKind.PROTOCOL:
            extra["fault"] = "PROTOCOL"
        self.error(fault.detail, **extra)


class _Arguments:
    """``SPEC [--path DIR]...``, as the dealer writes them: the bot's spec
    (``FILE.py:Class`` or ``package.module:Class``) and folders to put on ``sys.path``
    first. Read by hand: argparse would cost each seat a millisecond and more."""

    def __init__(self, argv: list[str]) -> None:
        flags = argv[1::2]
        if not argv or len(argv) % 2 == 0 or any(flag != "--path" for flag in flags):
            raise SystemExit(
                "usage: python -m dp_arena.sandbox.bot.runner SPEC [--path DIR]..."
                f" (not {' '.join(argv) or 'nothing'})"
            )
        self.spec: str = argv[0]
        self.path: list[str] = argv[2::2]


def main(argv: list[str] | None = None) -> int:
    args = _Arguments(sys.argv[1:] if argv is None else argv)

    # Keep the real stdout for the protocol and send everything else written to fd 1
    # (print, C extensions) to stderr, where it lands in the bot's log.
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    output = os.fdopen(protocol_fd, "wb", buffering=1 << 16)
    host = _Host(output)
    stdin = sys.stdin.buffer

    hello_line = stdin.readline()
    if not hello_line:
        return 0
    for folder in reversed(args.path):
        sys.path.insert(0, folder)
    try:
        from dp_arena.agents.spec import load_agent

        agent = load_agent(args.spec)
    except BaseException as error:  # anything at all: the dealer must hear why
        host.error(f"loading {args.spec}: {describe_error(error)}")
        return 1
    seat = InProcessSeat(agent, args.spec)
    host.send(
        {
            "type": "hello",
            "protocol": host.protocol.PROTOCOL_VERSION,
            "name": seat.bot_name,
            # The dealer then sends no notification the bot would only skip.
            "hooks": sorted(hook for hook in host.protocol.HOOKS if seat.has_hook(hook)),
        }
    )
    _play(seat, stdin, host)
    return 0


def _play(seat: InProcessSeat, stdin: BinaryIO, host: _Host) -> None:
    """Answer the dealer's messages until its goodbye (or the end of its input)."""
    # Each notification: the hook it is for, its field, how it is read, the seat's call.
    notifications: dict[str, tuple[str, str, Callable[[Any], Any], Callable[[Any], Any]]] = {
        "session_start": ("begin_session", "context", SessionContext.from_json, seat.begin_session),
        "deal_start": ("begin_deal", "deal", DealStart.from_json, seat.begin_deal),
        "deal_end": ("end_deal", "result", DealEnd.from_json, seat.end_deal),
    }
    # The dealer's messages are trusted and well formed: the plain parser is the fast one.
    decode = json.loads
    for line in stdin:
        message = decode(line)
        kind = message.get("type")
        if kind == "act":
            request_id = message.get("id")
            answer = seat.decide(Observation.from_json(message["observation"]))
            if isinstance(answer, SeatFault):
                host.fault(answer, id=request_id)
                continue
            reply: dict[str, Any] = {"type": "action", "id": request_id}
            if isinstance(answer, Mix):
                reply["mix"] = answer.to_json()
                what = "a mix"
            else:
                reply["action"] = answer.kind.value
                if answer.amount is not None:
                    reply["amount"] = answer.amount
                what = answer.kind.value
            if not host.send(reply):
                unsent = f"act returned {what} with an amount that cannot be sent"
                host.fault(SeatFault(FaultKind.PROTOCOL, unsent), id=request_id)
        elif kind in notifications:
            hook, field, read, notify = notifications[kind]
            if not seat.has_hook(hook):
                continue
            fault = notify(read(message[field]))
            if fault is not None:
                host.fault(fault, about=hook)
        elif kind == "goodbye":
            seat.close()
            return


if __name__ == "__main__":
    sys.exit(main())
