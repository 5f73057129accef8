"""The pipe protocol between the dealer and a bot process: line-based JSON messages.

One JSON object per line, UTF-8, in both directions (``docs/protocol.md`` shows a whole
exchange). The dealer writes to the bot's stdin and reads its stdout; the bot's stderr
is its log. Version :data:`PROTOCOL_VERSION`.

Dealer to bot (``type``): ``hello`` (protocol version, seat name, limits),
``session_start`` (``context``), ``deal_start`` (``deal``), ``act`` (``id``,
``observation``), ``deal_end`` (``result``), ``goodbye``. Only ``hello`` and ``act``
expect an answer; the others are notifications, so a deal costs one round trip per
decision and nothing more.

Bot to dealer: ``hello`` (``protocol``, ``name``), the answer to ``act``
(``{"type": "action", "id": 7, "action": "raise", "amount": 120}``; ``type`` may be
left out), ``error`` (``message``, and the ``id`` of the request it answers, if any)
and ``log`` (``message``, written to the bot's log).

>>> decode(encode({"type": "act", "id": 1}))
{'type': 'act', 'id': 1}
>>> reply_action({"id": 3, "action": "raise", "amount": 120}, expected_id=3)
Action(kind=<ActionKind.RAISE: 'raise'>, amount=120)
"""

from __future__ import annotations

import json
from typing import Any

from dp_arena.agents.agent import parse_action
from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.engine.actions import Action

__all__ = [
    "PROTOCOL_VERSION",
    "ProtocolViolation",
    "act",
    "deal_end",
    "deal_start",
    "decode",
    "encode",
    "goodbye",
    "hello",
    "reply_action",
    "session_start",
]

PROTOCOL_VERSION = 1

# Compact separators: the observation is most of every request's bytes.
_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


class ProtocolViolation(ValueError):
    """A message from a bot that breaks the protocol (a ``PROTOCOL`` fault)."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as one line of UTF-8 JSON, newline included."""
    return (_encoder.encode(message) + "\n").encode("utf-8")


def decode(line: bytes) -> dict[str, Any]:
    """The JSON object on one line; :class:`ProtocolViolation` says what is wrong."""
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, ValueError):
        raise ProtocolViolation(f"not a JSON line: {_excerpt(line)}") from None
    if not isinstance(message, dict):
        raise ProtocolViolation(f"not a JSON object: {_excerpt(line)}")
    return message


def _excerpt(line: bytes, limit: int = 80) -> str:
    return repr(line[:limit]) + ("..." if len(line) > limit else "")


def hello(name: str, limits: dict[str, Any]) -> dict[str, Any]:
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "name": name, "limits": limits}


def session_start(context: SessionContext) -> dict[str, Any]:
    return {"type": "session_start", "context": context.to_json()}


def deal_start(start: DealStart) -> dict[str, Any]:
    return {"type": "deal_start", "deal": start.to_json()}


def act(request_id: int, observation: Observation) -> dict[str, Any]:
    return {"type": "act", "id": request_id, "observation": observation.to_json()}


def deal_end(end: DealEnd) -> dict[str, Any]:
    return {"type": "deal_end", "result": end.to_json()}


def goodbye() -> dict[str, Any]:
    return {"type": "goodbye"}


def check_hello(message: dict[str, Any]) -> str:
    """The bot's name from its hello; :class:`ProtocolViolation` if it is not one."""
    if message.get("type") != "hello":
        raise ProtocolViolation(f"expected a hello, got {_brief(message)}")
    if message.get("protocol") != PROTOCOL_VERSION:
        raise ProtocolViolation(
            f"protocol version {message.get('protocol')!r} is not supported"
            f" (this dealer speaks {PROTOCOL_VERSION})"
        )
    name = message.get("name", "")
    if not isinstance(name, str):
        raise ProtocolViolation(f"hello: name must be a string, not {_brief(name)}")
    return name[:100]


def reply_action(message: dict[str, Any], *, expected_id: int) -> Action:
    """The action in a bot's answer to request ``expected_id``.

    :class:`ProtocolViolation` for a reply to another request, or an answer that is not
    an action (an ``error`` reply is the caller's to handle first)."""
    kind = message.get("type", "action")
    if kind != "action":
        raise ProtocolViolation(
            f"expected an action for request {expected_id}, got {_brief(message)}"
        )
    reply_id = message.get("id")
    if reply_id != expected_id or type(reply_id) is not int:
        raise ProtocolViolation(
            f"stale or wrong reply id {_brief(reply_id)} (expected {expected_id})"
        )
    try:
        return parse_action({"action": message.get("action"), "amount": message.get("amount")})
    except ValueError as error:
        raise ProtocolViolation(f"malformed action {_brief(message)}: {error}") from None


def _brief(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= limit else text[:limit] + "..."
