"""The seat's message handling against any byte stream a bot can send, at any moment:
before its hello, in answer to a request, between requests, during the notifications,
partial lines and end of file. Every call returns an action, nothing or a fault whose
detail is printable, never an exception; and a stray line on stdout costs the bot at
most one fault, exactly where docs/protocol.md says.

The bot is a :class:`~tests.sandbox.fake_bot.FakeBot` behind real pipes, so hundreds of
streams play in seconds; the hostile-bot tests run the same attacks as real programs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dp_arena.agents import SeatFault, SessionContext
from dp_arena.agents.seat import DETAIL_LIMIT
from dp_arena.engine import Action
from dp_arena.results import FaultKind
from dp_arena.sandbox import ProcessSeat
from dp_arena.sandbox.limits import Limits
from tests.strategies import bot_lines

from .fake_bot import DEAL_END, DEAL_START, EOF, OBSERVATION, Chunk, Stderr, seat_with_fake_bot

CALLS = ("begin_session", "begin_deal", "decide", "end_deal")
# Short: most fuzzed bots never answer, and each silence costs a deadline.
QUICK = Limits(action_timeout=0.02, time_bank=0.001, load_timeout=0.1)
# Generous: the cooperative bot of the model test answers at once, and no wait is spent.
PATIENT = Limits(action_timeout=10.0, time_bank=1.0, load_timeout=10.0)


def call(seat: ProcessSeat, name: str) -> Action | SeatFault | None:
    if name == "begin_session":
        return seat.begin_session(SessionContext(event="fuzz"))
    if name == "begin_deal":
        return seat.begin_deal(DEAL_START)
    if name == "decide":
        return seat.decide(OBSERVATION)
    return seat.end_deal(DEAL_END)


def check_answer(name: str, answer: Action | SeatFault | None) -> None:
    if name == "decide":
        assert isinstance(answer, (Action, SeatFault))
    else:
        assert answer is None or isinstance(answer, SeatFault)
    if isinstance(answer, SeatFault):
        assert isinstance(answer.kind, FaultKind)
        assert answer.detail.isprintable(), answer.detail
        answer.detail.encode("utf-8")
        assert len(answer.detail) <= DETAIL_LIMIT + 3


def _fill(template: bytes, message: dict[str, Any]) -> bytes:
    return template.replace(b"{ID}", str(message.get("id", 0)).encode())


# One chunk of what a bot writes: lines of any kind, with or without their newline,
# sometimes on stderr, sometimes the end of its output.
_LINE = st.one_of(bot_lines(), bot_lines(1), st.sampled_from([b'{"id":{ID},"action":"call"}']))
_CHUNK = st.one_of(
    _LINE.map(lambda line: line + b"\n"),
    _LINE,  # a partial line
    st.builds(Stderr, st.one_of(st.binary(max_size=300), _LINE)),
)
_ANSWER = st.lists(_CHUNK, max_size=4).flatmap(
    lambda chunks: st.one_of(st.just(chunks), st.just([*chunks, EOF]))
)


@st.composite
def _scripts(draw: st.DrawFn) -> tuple[list[list[Chunk]], list[str]]:
    good_hello = b'{"type":"hello","protocol":1,"name":"fuzz"}\n'
    before = draw(st.lists(_CHUNK, max_size=2))
    hello = [*before, good_hello] if draw(st.booleans()) else before
    calls = draw(st.lists(st.sampled_from(CALLS), min_size=1, max_size=7))
    answers = [draw(_ANSWER) for _ in calls]
    return [hello, *answers], calls


def _play(script: list[list[Chunk]]) -> Any:
    def respond(message: dict[str, Any]) -> Sequence[Chunk]:
        index = len(replies_given)
        replies_given.append(message)
        chunks = script[index] if index < len(script) else []
        return [_fill(chunk, message) if isinstance(chunk, bytes) else chunk for chunk in chunks]

    replies_given: list[dict[str, Any]] = []
    return respond


def _fuzz(example: tuple[list[list[Chunk]], list[str]]) -> None:
    script, calls = example
    with seat_with_fake_bot(_play(script), QUICK) as (seat, _):
        for name in calls:
            check_answer(name, call(seat, name))
        # A closed seat answers too, with a fault and never an exception.
    check_answer("decide", seat.decide(OBSERVATION))


_HELLO = b'{"type":"hello","protocol":1,"name":"fuzz"}\n'
_NESTED = b"[" * 200_000 + b"]" * 200_000 + b"\n"


@settings(max_examples=40)
@given(_scripts())
# The attacks that once stopped the dealer: nesting as an answer, before the hello and
# between requests; an id that cannot be looked up; text that cannot be encoded.
@example(([[_HELLO], [_NESTED]], ["decide"]))
@example(([[_NESTED]], ["begin_session"]))
@example(([[_HELLO], [_NESTED], []], ["end_deal", "begin_deal"]))
@example(([[_HELLO], [b'{"id":[{ID}],"action":"call"}\n']], ["decide"]))
@example(([[_HELLO], [b'{"type":"action","id":{"a":1}}\n'], []], ["end_deal", "decide"]))
@example(([[_HELLO], [b'{"type":"error","id":{ID},"message":"\\ud800\\u001b[2J"}\n']], ["decide"]))
@example(([[b'{"type":"hello","protocol":1,"name":"\\ud800"}\n'], []], ["begin_session"]))
def test_whatever_a_bot_writes_every_call_answers_and_faults_are_printable(
    example: tuple[list[list[Chunk]], list[str]],
) -> None:
    _fuzz(example)


@pytest.mark.slow
@settings(max_examples=1500)
@given(_scripts())
def test_whatever_a_bot_writes_many_more_streams(
    example: tuple[list[list[Chunk]], list[str]],
) -> None:
    _fuzz(example)


# -- a cooperative bot with stray lines: the cost of each is known exactly -----------------


def _starts_a_message(line: bytes) -> bool:
    return line.lstrip()[:1] in (b"{", b"[")


# Stray output: lines that are no attempt at a message, never taken for an answer.
STRAY = st.one_of(
    st.sampled_from(
        [
            b"debug: pot 120, to call 20",
            b"\x1b[31mred\x1b[0m \r\x07 \xe2\x80\xae bidi",
            b"\xff\xfe\x00",
            b"",
            b'"call"',
            b'{"type":"debug","message":"hi"}',
            b'{"debug": [1, 2]}',
        ]
    ),
    # Debug output quoting anything a bot might send, and raw bytes.
    st.one_of(bot_lines(), st.binary(max_size=100)).map(
        lambda line: b"debug: " + line.replace(b"\n", b" ")
    ),
    st.binary(max_size=100)
    .map(lambda line: line.replace(b"\n", b" "))
    .filter(lambda line: not _starts_a_message(line)),
)
# Broken messages: taken for the answer awaited, whatever is wrong with them.
BROKEN = st.sampled_from(
    [
        b"[" * 20_000 + b"]" * 20_000,
        b'{"a":' * 40 + b"1" + b"}" * 40,
        b"[1, 2, 3]",
        b'{"id": 1, "action": "call"',
        b'{"id":1,"action":"call","action":"fold"}',
        b'{"id":1,"action":"raise","amount":NaN}',
        b'{"type":"action","id":true,"action":"call"}',
        b'{"type":"action","action":"dance"}',
        b'{"type":"hello","protocol":1,"name":"again"}',
    ]
)
LOG = b'{"type":"log","message":"thinking"}'
BROKEN_LINES = frozenset(BROKEN.elements)  # type: ignore[attr-defined]


@st.composite
def _stray_plans(draw: st.DrawFn) -> dict[str, Any]:
    calls = draw(st.lists(st.sampled_from(CALLS), min_size=1, max_size=8))
    return {
        "before_hello": draw(st.booleans()) and draw(st.booleans()),
        "after_hello": draw(st.lists(STRAY, max_size=2)),
        "calls": calls,
        # For each call: lines before its answer (decide only) and after it.
        "before": [
            draw(st.lists(st.one_of(STRAY, BROKEN), max_size=2)) if name == "decide" else []
            for name in calls
        ],
        "after": [draw(st.lists(st.one_of(STRAY, st.just(LOG)), max_size=2)) for _ in calls],
        "stray": draw(STRAY),
    }


@settings(max_examples=40)
@given(_stray_plans())
# Two broken answers: the first is the decision's fault, the second stray output.
@example(
    {
        "before_hello": False,
        "after_hello": [],
        "calls": ["decide", "begin_session"],
        "before": [[b"[1, 2, 3]", b"[1, 2, 3]"], []],
        "after": [[], []],
        "stray": b"",
    }
)
def test_each_stray_line_costs_at_most_one_fault_where_the_protocol_says(
    plan: dict[str, Any],
) -> None:
    check_stray_plan(plan)


@pytest.mark.slow
@settings(max_examples=1000)
@given(_stray_plans())
def test_each_stray_line_costs_at_most_one_fault_many_more_plans(plan: dict[str, Any]) -> None:
    check_stray_plan(plan)


def check_stray_plan(plan: dict[str, Any]) -> None:
    """Stray lines never stand in for an answer: the hello and every decision are the
    bot's own, and all the stray lines read since the last notification are one
    PROTOCOL fault at the next, however many and whenever they came."""
    calls: list[str] = plan["calls"]
    hello = b'{"type":"hello","protocol":1,"name":"coop"}\n'
    opening = [plan["stray"] + b"\n"] if plan["before_hello"] else []
    opening += [hello, *(line + b"\n" for line in plan["after_hello"])]

    def respond(message: dict[str, Any]) -> Sequence[Chunk]:
        if message["type"] == "hello":
            return [b"".join(opening)]
        index = len(bot.received) - 1
        before = [line + b"\n" for line in plan["before"][index]]
        after = [line + b"\n" for line in plan["after"][index]]
        if message["type"] != "act":
            return before + after
        return [*before, b'{"type":"action","id":%d,"action":"call"}\n' % message["id"], *after]

    with seat_with_fake_bot(respond, PATIENT) as (seat, bot):
        answers = []
        for index, name in enumerate(calls):
            answers.append(call(seat, name))
            if seat.active:
                bot.settle(index + 2)  # the bot has written all it will for this message

    faults = [answer for answer in answers if isinstance(answer, SeatFault)]
    costly = (
        int(plan["before_hello"])
        + len(plan["after_hello"])
        + sum(len(lines) for lines in plan["before"])
        + sum(line != LOG for lines in plan["after"] for line in lines)
    )
    assert len(faults) <= costly  # one fault per stray or broken line at most
    pending = plan["before_hello"] or bool(plan["after_hello"])
    for index, (name, answer) in enumerate(zip(calls, answers, strict=True)):
        if name == "decide":
            before = plan["before"][index]
            broken = sum(line in BROKEN_LINES for line in before)
            if broken:
                # The first broken line is the answer; the real one after it is dropped.
                assert isinstance(answer, SeatFault) and answer.kind is FaultKind.PROTOCOL
                assert not answer.detail.startswith("stray line")
            else:
                assert answer == Action.call()
            # Stray lines are noted wherever they fall; a broken line after the answer
            # comes between requests, where a message nobody asked for is stray output.
            pending = pending or broken > 1 or any(line not in BROKEN_LINES for line in before)
        else:
            if pending:
                assert isinstance(answer, SeatFault) and answer.kind is FaultKind.PROTOCOL
                assert answer.detail.startswith("stray line on stdout: ")
            else:
                assert answer is None
            pending = False
        pending = pending or any(line != LOG for line in plan["after"][index])


# -- single cases, spelled out -------------------------------------------------------------


def _scripted(*answers: Sequence[Chunk]) -> Any:
    """A script giving the n-th message the n-th answer (the hello first), the id of
    ``act`` filled in for ``{ID}``."""
    return _play([list(chunks) for chunks in answers])


def test_a_partial_line_then_the_end_is_a_crash_that_names_the_partial_line() -> None:
    script = _scripted([_HELLO], [b'{"type":"action","id":{ID},"act', EOF])
    with seat_with_fake_bot(script, PATIENT) as (seat, _):
        answer = seat.decide(OBSERVATION)
    assert isinstance(answer, SeatFault) and answer.kind is FaultKind.CRASH
    assert '28 bytes came without a newline: \'{"type":"action","id":1,"act\'' in answer.detail


def test_interleaved_logs_errors_and_stray_lines_around_an_answer() -> None:
    """The answer is taken; the hook error and the stray line are one fault, at the next
    notification; the log is kept."""
    answer_lines = [
        b'{"type":"log","message":"thinking \\u001b[2J"}\n',
        b'{"type":"error","message":"a hook failed"}\n',
        b"debug: about to answer\n",
        b'{"type":"action","id":{ID},"action":"call"}\n',
    ]
    script = _scripted([_HELLO], answer_lines, [])
    with seat_with_fake_bot(script, PATIENT) as (seat, bot):
        assert seat.decide(OBSERVATION) == Action.call()
        bot.settle(2)
        fault = seat.end_deal(DEAL_END)
        log = bytes(seat.log.tail)
    assert isinstance(fault, SeatFault) and fault.kind is FaultKind.PROTOCOL
    assert fault.detail == (
        "error: a hook failed; stray line on stdout: not JSON (Expecting value at column 1):"
        " 'debug: about to answer' (print debug output to stderr; stdout is for protocol"
        " messages only)"
    )
    assert b"[dp-arena] log: thinking \\x1b[2J" in log  # escaped: the dealer's notes are plain


def test_a_real_answer_after_a_broken_one_is_dropped_not_counted_again() -> None:
    first = [b"[1, 2]\n", b'{"type":"action","id":{ID},"action":"fold"}\n']
    second = [b'{"type":"action","id":{ID},"action":"call"}\n']
    script = _scripted([_HELLO], first, second, [])
    with seat_with_fake_bot(script, PATIENT) as (seat, bot):
        broken = seat.decide(OBSERVATION)
        bot.settle(2)
        answers = [broken, seat.decide(OBSERVATION), seat.end_deal(DEAL_END)]
    assert isinstance(answers[0], SeatFault) and answers[0].kind is FaultKind.PROTOCOL
    assert "not a JSON object: '[1, 2]'" in answers[0].detail
    assert answers[1:] == [Action.call(), None]


def test_a_reply_with_an_id_that_cannot_be_looked_up_is_a_stale_reply() -> None:
    lines = [b'{"type":"action","id":[{ID}],"action":"call"}\n', b'{"id":{"a":1}}\n']
    script = _scripted([_HELLO], lines, [])
    with seat_with_fake_bot(script, PATIENT) as (seat, bot):
        answer = seat.decide(OBSERVATION)
        bot.settle(2)
        later = seat.end_deal(DEAL_END)
    assert isinstance(answer, SeatFault) and "stale or wrong reply id [1]" in answer.detail
    assert isinstance(later, SeatFault) and later.kind is FaultKind.PROTOCOL
