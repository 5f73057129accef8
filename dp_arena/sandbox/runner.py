"""The Python bot runner: hosts an untrusted Python bot class behind the pipe protocol.

Run inside the sandbox as ``python -I -m dp_arena.sandbox.runner FILE.py:Class`` (or
``package.module:Class``, with ``--path DIR`` put on ``sys.path``). It answers the
dealer's hello once the bot is loaded, calls the bot's hooks and ``act`` for the
messages of :mod:`dp_arena.sandbox.protocol`, and reports the bot's exceptions as
``error`` messages. The bot's own ``print`` output goes to stderr (its log): stdout
carries only the protocol.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import traceback
from typing import Any, BinaryIO

__all__ = ["main"]


def _text(value: object, limit: int) -> str:
    """``str(value)`` cut to ``limit``; a bot's object may fail to become text, or be
    enormous: neither must stop the runner reporting on it."""
    try:
        text = str(value)
    except Exception:
        return f"<{type(value).__name__} that cannot be shown>"
    return text[:limit]


def _describe(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    return f"{type(error).__name__}: {_text(error, 400)}"[:400] + where


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dp_arena.sandbox.runner")
    parser.add_argument("spec", help="FILE.py:Class or package.module:Class")
    parser.add_argument(
        "--path", action="append", default=[], help="a folder to put on sys.path first"
    )
    args = parser.parse_args(argv)

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
        from dp_arena.agents import parse_action
        from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
        from dp_arena.agents.spec import load_agent
        from dp_arena.engine.actions import Action

        agent = load_agent(args.spec)
    except BaseException as error:  # anything at all: the dealer must hear why
        host.error(f"loading {args.spec}: {_describe(error)}")
        return 1
    hooks = {
        name: getattr(agent, name, None) for name in ("begin_session", "begin_deal", "end_deal")
    }
    host.send(
        {
            "type": "hello",
            "protocol": host.protocol.PROTOCOL_VERSION,
            "name": type(agent).__name__,
            # The dealer then sends no notification the bot would only skip.
            "hooks": sorted(name for name, hook in hooks.items() if hook is not None),
        }
    )
    readers = {
        "session_start": ("begin_session", "context", SessionContext.from_json),
        "deal_start": ("begin_deal", "deal", DealStart.from_json),
        "deal_end": ("end_deal", "result", DealEnd.from_json),
    }
    # The dealer's messages are trusted and well formed: the plain parser is the fast one.
    decode = json.loads
    for line in stdin:
        message = decode(line)
        kind = message.get("type")
        if kind == "act":
            request_id = message.get("id")
            try:
                answer = agent.act(Observation.from_json(message["observation"]))
            except Exception as error:
                host.error(f"act: {_describe(error)}", id=request_id)
                continue
            try:
                action = answer if type(answer) is Action else parse_action(answer)
            except Exception as error:  # an answer that is no action: as in-process, PROTOCOL
                host.error(
                    f"act returned {_text(answer, 80)!r}: {_text(error, 200)}",
                    id=request_id,
                    fault="PROTOCOL",
                )
                continue
            reply: dict[str, Any] = {
                "type": "action",
                "id": request_id,
                "action": action.kind.value,
            }
            if action.amount is not None:
                reply["amount"] = action.amount
            if not host.send(reply):
                host.error(
                    f"act returned {action.kind.value} with an amount that cannot be sent",
                    id=request_id,
                    fault="PROTOCOL",
                )
        elif kind in readers:
            hook_name, field, read = readers[kind]
            hook = hooks[hook_name]
            if hook is None:
                continue
            try:
                hook(read(message[field]))
            except Exception as error:
                host.error(f"{hook_name}: {_describe(error)}", about=hook_name)
        elif kind == "goodbye":
            close = getattr(agent, "close", None)
            if callable(close):
                with contextlib.suppress(Exception):
                    close()
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
