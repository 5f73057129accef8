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
(``{"type": "action", "id": 7, "action": "raise", "amount": 120}``, or a mixed
strategy the dealer draws from: ``{"type": "action", "id": 7, "mix": [{"action":
"call", "probability": 0.75}, {"action": "raise", "amount": 120, "probability":
0.25}]}``; ``type`` may be left out), ``error`` (``message``, and the ``id`` of the
request it answers, if any) and ``log`` (``message``, written to the bot's log).

>>> decode(encode({"type": "act", "id": 1}))
{'type': 'act', 'id': 1}
>>> reply_action({"id": 3, "action": "raise", "amount": 120}, expected_id=3)
Action(kind=<ActionKind.RAISE: 'raise'>, amount=120)
>>> reply_action({"id": 4, "mix": [{"action": "fold", "probability": 0.5},
...                                 {"action": "call", "probability": 0.5}]}, expected_id=4)
Mix.parse('fold 0.5, call 0.5')
"""

from __future__ import annotations

import itertools
import json
import operator
import re
from typing import Any

from dp_arena.agents.agent import HOOKS, parse_action
from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.engine.actions import Action
from dp_arena.engine.mixes import MAX_ENTRIES, Mix
from dp_arena.text import excerpt, printable

__all__ = [
    "HOOKS",
    "MAX_DEPTH",
    "MAX_DIGITS",
    "PROTOCOL_VERSION",
    "ProtocolViolation",
    "act",
    "brief",
    "check_hello",
    "deal_end",
    "deal_start",
    "decode",
    "encode",
    "goodbye",
    "hello",
    "hello_hooks",
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
    """The JSON object on one line from a bot; :class:`ProtocolViolation` says what is
    wrong, with an excerpt of the line as printable text.

    Whatever the bytes, this returns a plain ``dict`` or raises ``ProtocolViolation``:
    strict UTF-8 only; nesting deeper than :data:`MAX_DEPTH` is refused before parsing
    (a parser that recurses would otherwise overflow); so are integers of more than
    :data:`MAX_DIGITS` digits (slow to convert), ``NaN`` and ``Infinity`` (not JSON)
    and a key given twice in one object (ambiguous).
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ProtocolViolation(
            f"not UTF-8 (byte 0x{line[error.start]:02x} at offset {error.start}):"
            f" {_quote(line)}{_HINT}"
        ) from None
    if _too_deep(text):
        raise ProtocolViolation(f"nested more than {MAX_DEPTH} levels deep: {_quote(line)}")
    try:
        message = _decoder.decode(text)
    except json.JSONDecodeError as error:
        # Free text on stdout is nearly always debug output meant for the log.
        hint = "" if text.lstrip()[:1] in ("{", "[") else _HINT
        raise ProtocolViolation(
            f"not JSON ({error.msg} at column {error.colno}): {_quote(line)}{hint}"
        ) from None
    except _Refused as error:
        raise ProtocolViolation(f"{error}: {_quote(line)}") from None
    except (ValueError, RecursionError):  # a backstop: the checks above should catch these
        raise ProtocolViolation(f"not a JSON line: {_quote(line)}") from None
    if not isinstance(message, dict):
        raise ProtocolViolation(
            f"not a JSON object: {_quote(line)} (each line must be one object,"
            ' such as {"type": "action", "id": 1, "action": "call"})'
        )
    return message


# How deep a bot's message may nest. The protocol needs 2 levels; the rest is room for
# structured log messages. CPython's JSON parser recurses once per level.
MAX_DEPTH = 32
# The most digits an integer in a bot's message may have (int() is quadratic in them).
MAX_DIGITS = 100

_HINT = " (print debug output to stderr; stdout is for protocol messages only)"

# A JSON string, escapes included; the closing quote is optional so that the pattern
# never fails and never backtracks (an unterminated string runs to the end of the line).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_OPEN_RUN = re.compile(r"(?:[\[{]\s*){" + str(MAX_DEPTH + 1) + "}")
# Each opening bracket counts 2 and each closing one 0, so that after n brackets the
# running sum minus n is the depth.
_STEPS = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")


def _too_deep(text: str) -> bool:
    """Whether ``text`` nests deeper than :data:`MAX_DEPTH` outside its strings."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False  # the usual case, decided in two C-speed passes
    outside_strings = _STRING.sub("", text)
    if _OPEN_RUN.search(outside_strings):
        return True  # the plain attack, found without counting
    brackets = _NOT_BRACKET.sub("", outside_strings).encode("ascii")
    depths = map(operator.sub, itertools.accumulate(brackets.translate(_STEPS)), itertools.count(1))
    return max(depths, default=0) > MAX_DEPTH


class _Refused(ValueError):
    """Valid JSON the protocol refuses (raised from inside the parser)."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    message = dict(pairs)
    if len(message) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"the key {brief(key)} is given twice")
            seen.add(key)
    return message


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise _Refused(f"an integer of more than {MAX_DIGITS} digits")
    return int(digits)


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number")


_decoder = json.JSONDecoder(object_pairs_hook=_object, parse_int=_integer, parse_constant=_constant)


def _quote(line: bytes, limit: int = 80) -> str:
    """An excerpt of a bot's line, quoted, as printable text."""
    return f"'{excerpt(line, limit)}'"


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
        raise ProtocolViolation(f"expected a hello, got {brief(message)}")
    version = message.get("protocol")
    if version != PROTOCOL_VERSION or type(version) is not int:
        raise ProtocolViolation(
            f"protocol version {brief(version)} is not supported"
            f" (this dealer speaks {PROTOCOL_VERSION})"
        )
    name = message.get("name", "")
    if not isinstance(name, str):
        raise ProtocolViolation(f"hello: name must be a string, not {brief(name)}")
    return printable(name, 100)


def hello_hooks(message: dict[str, Any]) -> frozenset[str] | None:
    """The hooks a bot's hello says it has (``hooks``, optional: the dealer then sends
    only the notifications it listens to), or ``None`` when it does not say (every
    notification is sent). Names other than :data:`HOOKS` are ignored; anything but a
    list of strings is as good as not saying."""
    hooks = message.get("hooks")
    if not isinstance(hooks, list) or not all(isinstance(name, str) for name in hooks):
        return None
    return frozenset(name for name in hooks if name in HOOKS)


def reply_action(message: dict[str, Any], *, expected_id: int) -> Action | Mix:
    """The action, or the mixed strategy (``mix``), in a bot's answer to request
    ``expected_id``; a mix of one action is that action.

    :class:`ProtocolViolation` for a reply to another request, or an answer that is not
    an action or a well-formed mix (an ``error`` reply is the caller's to handle
    first). Whether the actions are legal is the table's to say."""
    kind = message.get("type", "action")
    if kind != "action":
        raise ProtocolViolation(
            f"expected an action for request {expected_id}, got {brief(message)}"
        )
    reply_id = message.get("id")
    if reply_id != expected_id or type(reply_id) is not int:
        raise ProtocolViolation(
            f"stale or wrong reply id {brief(reply_id)} (expected {expected_id})"
        )
    if "mix" in message:
        return _reply_mix(message)
    try:
        return parse_action({"action": message.get("action"), "amount": message.get("amount")})
    except ValueError as error:
        raise ProtocolViolation(f"malformed action {brief(message)}: {error}") from None


def _reply_mix(message: dict[str, Any]) -> Action | Mix:
    entries = message["mix"]
    if "action" in message or "amount" in message:
        raise ProtocolViolation(f"an answer gives an action or a mix, not both: {brief(message)}")
    if not isinstance(entries, list) or not entries or len(entries) > MAX_ENTRIES:
        raise ProtocolViolation(
            f"malformed mix {brief(entries)}: a list of 1 to {MAX_ENTRIES} objects"
            ' {"action": ..., "amount": ..., "probability": ...}'
        )
    pairs: list[tuple[Action, float | int]] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or set(entry) - {"action", "amount", "probability"}:
            raise ProtocolViolation(
                f"malformed mix: entry {index} {brief(entry)} is not an object of action,"
                " amount (for a raise) and probability"
            )
        probability = entry.get("probability")
        if not isinstance(probability, (int, float)) or isinstance(probability, bool):
            raise ProtocolViolation(
                f"malformed mix: entry {index} needs a number as its probability,"
                f" not {brief(probability)}"
            )
        try:
            action = parse_action({"action": entry.get("action"), "amount": entry.get("amount")})
        except ValueError as error:
            raise ProtocolViolation(f"malformed mix: entry {index}: {error}") from None
        pairs.append((action, probability))
    try:
        mix = Mix(pairs)
    except ValueError as error:
        raise ProtocolViolation(f"malformed mix: {error}") from None
    pure = mix.pure
    return mix if pure is None else pure


def brief(value: Any, limit: int = 120) -> str:
    """A value from a bot's message as short, printable JSON text."""
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= limit else text[:limit] + "..."
