"""The protocol decoder against hostile bytes: whatever a bot sends, decoding gives a
plain dict or a ``ProtocolViolation`` whose message is printable, never any other
exception; good messages decode to themselves; nesting is refused before the recursive
parser sees it, whatever the interpreter's recursion limit."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from dp_arena.agents import parse_action
from dp_arena.engine import Mix
from dp_arena.sandbox import protocol
from dp_arena.sandbox.protocol import MAX_DEPTH, ProtocolViolation
from tests.strategies import bot_lines, json_values


def decoded_or_violation(line: bytes) -> dict[str, Any] | ProtocolViolation:
    try:
        return protocol.decode(line)
    except ProtocolViolation as violation:
        return violation


def assert_printable_line(text: str) -> None:
    assert text.isprintable(), text  # no control character, newline, bidi override or surrogate
    text.encode("utf-8")


@given(st.one_of(bot_lines(), bot_lines(7), st.binary()))
@example(b"[" * 200_000 + b"]" * 200_000)  # 400 KB, under the message limit
@example(b"[" * 400_000)
@example(b'{"type":"log","message":' + b"[" * 100_000 + b'"x"' + b"]" * 100_000 + b"}")
def test_any_bytes_decode_to_a_dict_or_a_printable_violation(line: bytes) -> None:
    outcome = decoded_or_violation(line)
    if isinstance(outcome, ProtocolViolation):
        assert_printable_line(str(outcome))
        assert len(str(outcome)) < 400
    else:
        assert type(outcome) is dict


@given(st.dictionaries(st.text(max_size=10), json_values(), max_size=6))
def test_good_messages_decode_to_themselves(message: dict[str, Any]) -> None:
    assert protocol.decode(protocol.encode(message)) == message


def reference_depth(text: str) -> tuple[int, bool]:
    """The deepest nesting outside strings, by a plain character-by-character scan, and
    whether some closing bracket closes nothing (no such text is JSON)."""
    depth = deepest = 0
    in_string = escaped = overclosed = False
    for character in text:
        if in_string:
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == '"':
                in_string = False
        elif character == '"':
            in_string = True
        elif character in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif character in "]}":
            depth -= 1
            overclosed = overclosed or depth < 0
    return deepest, overclosed


_PIECES = st.sampled_from(
    [
        "[",
        "{",
        "]",
        "}",
        '"',
        "\\",
        "a",
        " ",
        ":",
        ",",
        "[" * 8,
        "]" * 8,
        "{" * 8,
        '"[[[[[[[["',
        '\\"',
    ]
)


@given(st.lists(_PIECES, max_size=60).map("".join))
@example("[" * (MAX_DEPTH + 1))
@example("[" * MAX_DEPTH + "]" * MAX_DEPTH)
@example("[ " * (MAX_DEPTH + 1))
@example('["' + "[" * 40 + '"]')
@example('"\\"' + "[" * 40)  # an escaped quote keeps the string open
@example(("[" * 20 + "]" * 20) * 10 + "[" * 33)
@example("]" + "[" * (MAX_DEPTH + 1))  # too deep for the check, not for the scan
def test_the_depth_check_agrees_with_a_plain_scan(text: str) -> None:
    deepest, overclosed = reference_depth(text)
    if overclosed:
        # Not JSON whatever its depth: the check may refuse it early, and if it does not,
        # the decoder does.
        assert protocol._too_deep(text) or isinstance(
            decoded_or_violation(text.encode()), ProtocolViolation
        )
    else:
        assert protocol._too_deep(text) == (deepest > MAX_DEPTH)


@pytest.mark.parametrize("depth", [MAX_DEPTH, MAX_DEPTH + 1])
def test_nesting_up_to_the_limit_is_allowed_and_beyond_it_refused(depth: int) -> None:
    line = b'{"type":"log","message":' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}"
    outcome = decoded_or_violation(line)
    if depth <= MAX_DEPTH:
        assert outcome == {
            "type": "log",
            "message": json.loads(b"[" * (depth - 1) + b"]" * (depth - 1)),
        }
    else:
        assert isinstance(outcome, ProtocolViolation)
        assert f"nested more than {MAX_DEPTH} levels deep" in str(outcome)


def test_the_nesting_attack_is_refused_before_parsing_whatever_the_recursion_limit() -> None:
    """With the recursion limit raised, a recursive parser given 200,000 levels would
    overflow the C stack and kill the dealer; with integer conversion unlimited, a
    million digits would take seconds. Run apart, so a regression fails this test
    instead of killing the test run."""
    program = (
        "import sys\n"
        "sys.setrecursionlimit(1_000_000)\n"
        "sys.set_int_max_str_digits(0)\n"
        "from dp_arena.sandbox import protocol\n"
        "for line in (b'[' * 200_000 + b']' * 200_000, b'{\"a\":' * 200_000,\n"
        '             b\'{"id":1,"action":"raise","amount":\' + b\'9\' * 1_000_000 + b\'}\'):\n'
        "    try:\n"
        "        protocol.decode(line)\n"
        "    except protocol.ProtocolViolation as violation:\n"
        "        print(str(violation).split(':')[0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"nested more than {MAX_DEPTH} levels deep",
        f"nested more than {MAX_DEPTH} levels deep",
        f"an integer of more than {protocol.MAX_DIGITS} digits",
    ]


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (b"debug: hand 3 \x1b[31mred", "not JSON (Expecting value at column 1)"),
        (b"\xff\xfe not utf-8", "not UTF-8 (byte 0xff at offset 0)"),
        (b'\xef\xbb\xbf{"id":1}', "not JSON (Expecting value at column 1): '\\ufeff{"),
        (b'{"id":1,"action":"call"}\x00', "not JSON (Extra data at column 25)"),
        (b'{"id":1,"action":"raise","amount":NaN}', "NaN is not a JSON number"),
        (b'{"id":1,"action":"raise","amount":-Infinity}', "-Infinity is not a JSON number"),
        (b'{"id":1,"action":"call","action":"fold"}', 'the key "action" is given twice'),
        (b'{"amount":' + b"1" * 101 + b"}", "an integer of more than 100 digits"),
        (b"[1, 2, 3]", "not a JSON object: '[1, 2, 3]'"),
        (b'"call"', "not a JSON object: '\"call\"'"),
    ],
)
def test_each_violation_says_what_is_wrong_with_a_plain_excerpt(line: bytes, says: str) -> None:
    outcome = decoded_or_violation(line)
    assert isinstance(outcome, ProtocolViolation)
    text = str(outcome)
    assert says in text
    assert "b'" not in text and 'b"' not in text  # no Python bytes repr
    assert "\x1b" not in text and "\x00" not in text
    assert_printable_line(text)


def test_free_text_gets_the_stderr_hint_and_a_truncated_json_line_does_not() -> None:
    free_text = str(decoded_or_violation(b"debug: pot is 120"))
    assert free_text == (
        "not JSON (Expecting value at column 1): 'debug: pot is 120'"
        " (print debug output to stderr; stdout is for protocol messages only)"
    )
    truncated = str(decoded_or_violation(b'{"id": 1, "action": "call"'))
    assert "delimiter" in truncated and "stderr" not in truncated


def test_long_lines_are_cut_in_the_excerpt() -> None:
    text = str(decoded_or_violation(b"x" * 100_000))
    assert "x" * 80 + "...'" in text and "x" * 81 not in text


def test_values_that_decode_are_judged_by_the_action_rules() -> None:
    """Finite JSON that decodes is the action reader's to refuse: a float amount (1e400
    is infinity), a float or boolean id, an id that is a list, each a protocol fault
    with no other exception."""
    cases = [
        (b'{"id":1,"action":"raise","amount":1e400}', "integer amount"),
        (b'{"id":1,"action":"raise","amount":true}', "integer amount"),
        (b'{"id":1.0,"action":"call"}', "stale or wrong reply id 1.0"),
        (b'{"id":true,"action":"call"}', "stale or wrong reply id true"),
        (b'{"id":[1],"action":"call"}', "stale or wrong reply id [1]"),
        (b'{"id":1,"action":["call"]}', "not an action kind"),
    ]
    for line, says in cases:
        with pytest.raises(ProtocolViolation) as caught:
            protocol.reply_action(protocol.decode(line), expected_id=1)
        assert says in str(caught.value)
    assert protocol.reply_action(
        protocol.decode(b'{"id":1,"action":"raise","amount":120}'), expected_id=1
    ) == parse_action("raise 120")


def test_a_mixed_answer_is_read_into_a_mix() -> None:
    line = (
        b'{"type":"action","id":3,"mix":[{"action":"raise","amount":120,"probability":0.25},'
        b'{"action":"call","probability":0.5},{"action":"fold","probability":0.25}]}'
    )
    mix = protocol.reply_action(protocol.decode(line), expected_id=3)
    assert isinstance(mix, Mix) and str(mix) == "fold 0.25, call 0.5, raise 120 0.25"
    # Probabilities may be whole numbers; a mix of one action is that action.
    sure = b'{"id":4,"mix":[{"action":"check","probability":1},{"action":"fold","probability":0}]}'
    assert protocol.reply_action(protocol.decode(sure), expected_id=4) == parse_action("check")


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (b'{"id":1,"mix":[]}', "malformed mix []"),
        (b'{"id":1,"mix":{"call":1}}', "malformed mix"),
        (b'{"id":1,"action":"call","mix":[{"action":"call","probability":1}]}', "not both"),
        (b'{"id":1,"mix":["call"]}', "entry 0"),
        (b'{"id":1,"mix":[{"action":"call","probability":1,"weight":2}]}', "entry 0"),
        (b'{"id":1,"mix":[{"action":"call","probability":"1"}]}', "a number as its probability"),
        (b'{"id":1,"mix":[{"action":"call","probability":true}]}', "a number as its probability"),
        (b'{"id":1,"mix":[{"action":"call"}]}', "a number as its probability"),
        (b'{"id":1,"mix":[{"action":"dance","probability":1}]}', "entry 0: not an action kind"),
        (b'{"id":1,"mix":[{"action":"raise","probability":1}]}', "integer amount"),
        (b'{"id":1,"mix":[{"action":"raise","amount":60.0,"probability":1}]}', "integer amount"),
        (
            (
                b'{"id":1,"mix":[{"action":"call","probability":0.5},'
                b'{"action":"fold","probability":0.4}]}'
            ),
            "add up to 0.9",
        ),
        (
            (
                b'{"id":1,"mix":[{"action":"call","probability":1.5},'
                b'{"action":"fold","probability":-0.5}]}'
            ),
            "not from 0 to 1",
        ),
        (
            (
                b'{"id":1,"mix":[{"action":"call","probability":0.5},'
                b'{"action":"call","probability":0.5}]}'
            ),
            "listed twice",
        ),
        (b'{"id":1,"mix":[' + b'{"action":"fold","probability":0.01},' * 64 + b"1]}", "1 to 64"),
    ],
)
def test_a_malformed_mix_is_a_protocol_violation_that_says_why(line: bytes, says: str) -> None:
    with pytest.raises(ProtocolViolation) as caught:
        protocol.reply_action(protocol.decode(line), expected_id=1)
    assert says in str(caught.value)
    assert_printable_line(str(caught.value))


def test_a_hello_name_is_made_printable() -> None:
    hello = protocol.decode(
        b'{"type":"hello","protocol":1,"name":"\\u001b]0;owned\\u0007\\ud800x"}'
    )
    assert protocol.check_hello(hello) == "\\x1b]0;owned\\x07\\ud800x"
    with pytest.raises(ProtocolViolation, match="protocol version true"):
        protocol.check_hello({"type": "hello", "protocol": True})
