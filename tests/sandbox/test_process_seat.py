"""Sandboxed seats behave like in-process ones: the same bot plays the same deals the
same way through the pipe protocol; example bots in Python and Node.js play cleanly;
load failures, the time bank, message caps and log caps work as documented."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from dp_arena.agents import InProcessSeat, SessionContext, load_agent, observe
from dp_arena.engine import Action, Betting, TableRules, deck_for, new_hand
from dp_arena.results import FaultKind
from dp_arena.sandbox import FailedSeat, ProcessSeat, open_seat
from dp_arena.sandbox.dealer.pipes import BotLog, Oversized, Pipes
from dp_arena.sandbox.limits import Limits

from .conftest import LIMITS, PYTHON, REPO, assert_nothing_left, play

EXAMPLES = REPO / "examples" / "bots"
TIGHT = f"{EXAMPLES / 'python_class' / 'bot.py'}:TightCaller"
RANDOM = f"{REPO / 'agents' / 'random_bot.py'}:RandomBot"
THREE = TableRules(seat_count=3, small_blind=10, big_blind=20, betting=Betting.POT_LIMIT, cap=1000)


def test_a_sandboxed_bot_plays_exactly_as_in_process() -> None:
    """The oracle is the same class called directly: every deal, action and net agrees."""
    sandboxed = open_seat(TIGHT, name="tight", limits=LIMITS)
    assert isinstance(sandboxed, ProcessSeat)
    try:
        seats = [
            sandboxed,
            InProcessSeat(load_agent(RANDOM), "r1"),
            InProcessSeat(load_agent(RANDOM), "r2"),
        ]
        through_pipe = play(seats, deals=30, rules=THREE)
    finally:
        sandboxed.close()
    direct = play(
        [
            InProcessSeat(load_agent(TIGHT), "tight"),
            InProcessSeat(load_agent(RANDOM), "r1"),
            InProcessSeat(load_agent(RANDOM), "r2"),
        ],
        deals=30,
        rules=THREE,
    )
    assert through_pipe.faults == ()
    assert through_pipe.deals == direct.deals
    assert_nothing_left([sandboxed])


def test_a_sandboxed_bot_answering_with_mixes_plays_exactly_as_in_process() -> None:
    """The random bot answers every decision with a mix: through the pipe the dealer
    reads the same mixes, draws the same actions and records the same deals."""
    sandboxed = open_seat(RANDOM, name="random", limits=LIMITS)
    assert isinstance(sandboxed, ProcessSeat)
    try:
        through_pipe = play([sandboxed, InProcessSeat(load_agent(TIGHT), "tight")], deals=20)
    finally:
        sandboxed.close()
    direct = play(
        [InProcessSeat(load_agent(RANDOM), "random"), InProcessSeat(load_agent(TIGHT), "tight")],
        deals=20,
    )
    assert through_pipe.faults == ()
    assert through_pipe.deals == direct.deals
    assert sum(len(deal.mixes) for deal in direct.deals) >= 20
    assert_nothing_left([sandboxed])


@pytest.mark.parametrize(
    "spec",
    [f"{PYTHON} -I {EXAMPLES / 'python' / 'bot.py'}", f"node {EXAMPLES / 'node' / 'bot.js'}"],
    ids=["python", "node"],
)
def test_the_example_external_bots_play_cleanly(spec: str, tmp_path: Path) -> None:
    first = open_seat(spec, name="external", limits=LIMITS, log_dir=tmp_path)
    second = open_seat(spec, name="external", limits=LIMITS, log_dir=tmp_path)
    try:
        result = play(
            [first, second, InProcessSeat(load_agent(RANDOM), "random")],
            deals=12,
            rules=THREE,
        )
        assert isinstance(first, ProcessSeat) and isinstance(second, ProcessSeat)
        assert first.process is not None and second.process is not None
        assert first.process.pid != second.process.pid  # mirrored copies never share a process
        assert first.bot_name in ("PipePairBot", "NodePotOddsBot")
    finally:
        first.close()
        second.close()
    assert result.faults == ()
    assert all(sum(deal.nets) == 0 for deal in result.deals)
    # Each bot's stderr (it logs one line per deal) is kept, one file per copy.
    logs = sorted(path.name for path in tmp_path.iterdir())
    assert logs == ["external.2.log", "external.log"]
    assert (tmp_path / "external.log").read_text().count("net") == 12
    assert_nothing_left([first, second])


def test_a_bot_that_cannot_load_is_a_load_error_then_absent(tmp_path: Path) -> None:
    missing = open_seat(str(tmp_path / "nowhere.py") + ":Bot", name="hostile", limits=LIMITS)
    assert isinstance(missing, FailedSeat) and missing.active
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bot.py").write_text("import no_such_module_anywhere\n")
    crashing = open_seat(f"{broken / 'bot.py'}:Bot", name="hostile", limits=LIMITS)
    for seat in (missing, crashing):
        result = play([seat, InProcessSeat(load_agent(RANDOM), "random")], deals=4)
        seat.close()
        assert [fault.kind for fault in result.faults] == [FaultKind.LOAD_ERROR]
        assert not seat.active
        as_if_absent_vs_random(result)
    assert "no_such_module_anywhere" in play_fault_detail(f"{broken / 'bot.py'}:Bot")


def as_if_absent_vs_random(result) -> None:  # type: ignore[no-untyped-def]
    from dp_arena.agents import AbsentSeat

    expected = play([AbsentSeat(), InProcessSeat(load_agent(RANDOM), "random")], deals=4)
    assert [deal.nets for deal in result.deals] == [deal.nets for deal in expected.deals]


def play_fault_detail(spec: str) -> str:
    seat = open_seat(spec, name="x", limits=LIMITS)
    fault = seat.begin_session(SessionContext())
    seat.close()
    assert fault is not None
    return fault.detail


def _observation(seat_count: int = 2):  # type: ignore[no-untyped-def]
    rules = TableRules(
        seat_count=seat_count, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT
    )
    state = new_hand(rules, deck_for(1, 0, 0, 0), button=0)
    assert state.actor is not None
    return observe(state, state.actor, SessionContext())


def test_the_time_bank_pays_for_slow_decisions_until_it_runs_out(tmp_path: Path) -> None:
    folder = tmp_path / "slow"
    folder.mkdir()
    (folder / "bot.py").write_text(
        "import time\nclass Bot:\n    def act(self, observation):\n"
        "        time.sleep(0.8)\n        return 'fold'\n"
    )
    limits = LIMITS.with_changes(action_timeout=0.3, time_bank=1.3)
    seat = open_seat(f"{folder / 'bot.py'}:Bot", name="slow", limits=limits)
    try:
        assert seat.begin_session(SessionContext()) is None
        answers = [seat.decide(_observation()) for _ in range(3)]
    finally:
        seat.close()
    assert [getattr(answer, "kind", None) for answer in answers[:2]] == ["fold", "fold"]
    assert getattr(answers[2], "kind", None) is FaultKind.TIMEOUT


def test_a_late_reply_after_a_timeout_is_dropped_not_taken_for_the_next_answer(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "late"
    folder.mkdir()
    (folder / "bot.py").write_text(
        "import time\nclass Bot:\n    calls = 0\n    def act(self, observation):\n"
        "        self.calls += 1\n        if self.calls == 1:\n            time.sleep(1.0)\n"
        "            return 'call'\n        return 'fold'\n"
    )
    seat = open_seat(
        f"{folder / 'bot.py'}:Bot",
        name="late",
        limits=LIMITS.with_changes(action_timeout=0.2, time_bank=0.1),
    )
    try:
        seat.begin_session(SessionContext())
        first = seat.decide(_observation())
        time.sleep(1.2)  # the late "call" arrives meanwhile
        second = seat.decide(_observation())
    finally:
        seat.close()
    assert getattr(first, "kind", None) is FaultKind.TIMEOUT
    assert str(second) == "fold"


def test_lines_over_the_message_limit_are_skipped_without_being_buffered() -> None:
    to_bot_read, to_bot_write = os.pipe()
    from_bot_read, from_bot_write = os.pipe()
    err_read, err_write = os.pipe()
    pipes = Pipes(to_bot_write, from_bot_read, err_read, message_bytes=4096, log=BotLog(None, 1000))
    payload = b"x" * (10 * 1024 * 1024) + b"\n" + b'{"ok": 1}\n'

    def writer() -> None:
        view = memoryview(payload)
        while view:
            view = view[os.write(from_bot_write, view[:65536]) :]

    thread = threading.Thread(target=writer)
    thread.start()
    deadline = time.monotonic() + 30
    with pytest.raises(Oversized):
        pipes.read_line(deadline)
    assert len(pipes._buffer) <= 4096 + 65536
    line = pipes.read_line(deadline)
    while line is None:
        line = pipes.read_line(deadline)
    assert line == b'{"ok": 1}'
    thread.join()
    for fd in (to_bot_read, from_bot_write, err_write):
        os.close(fd)
    pipes.close()


def test_a_bots_stderr_is_kept_up_to_the_log_limit(tmp_path: Path) -> None:
    folder = tmp_path / "chatty"
    folder.mkdir()
    (folder / "bot.py").write_text(
        "import sys\nclass Bot:\n    def act(self, observation):\n"
        "        sys.stderr.write('chatter ' * 100000)\n"
        "        print('stray stdout goes to the log too')\n        return 'fold'\n"
    )
    seat = open_seat(
        f"{folder / 'bot.py'}:Bot",
        name="chatty",
        limits=LIMITS.with_changes(log_bytes=65536),
        log_dir=tmp_path / "logs",
    )
    try:
        seat.begin_session(SessionContext())
        answers = [seat.decide(_observation()) for _ in range(3)]
    finally:
        seat.close()
    assert [str(answer) for answer in answers] == ["fold"] * 3
    log = (tmp_path / "logs" / "chatty.log").read_bytes()
    assert 65536 <= len(log) < 65536 + 200
    assert b"log truncated at 65536 bytes" in log


def test_limits_are_validated() -> None:
    from dp_arena.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        Limits(memory_bytes=0)
    assert caught.value.field == "memory_bytes"


def test_deal_start_and_deal_end_survive_the_trip_through_json() -> None:
    """The hooks' messages are rebuilt exactly on the bot's side of the pipe."""
    from dp_arena.agents import DealEnd, DealStart

    rules = TableRules(seat_count=3, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
    state = new_hand(rules, deck_for(3, 0, 0, 1), button=1)
    while state.actor is not None:
        legal = state.legal_actions()
        state.apply(Action.call() if legal.can_call else Action.check())
    assert state.payoffs is not None and state.showdown_values
    context = SessionContext(
        event="e", deal_number=1, deals_in_session=9, table_session_nets=(1, -1, 0)
    )
    hole = state.hole_cards[2]
    assert hole is not None
    start = DealStart(2, 3, 1, hole, context)
    end = DealEnd(
        2,
        state.payoffs[2],
        state.payoffs,
        state.board,
        tuple(state.hole_cards),
        tuple(state.history),
        context,
    )
    assert DealStart.from_json(json.loads(json.dumps(start.to_json()))) == start
    assert DealEnd.from_json(json.loads(json.dumps(end.to_json()))) == end


BUGGY_BOT = '''
class Buggy:
    """Raises in act, answers with no action, then raises in a hook; plays on between."""

    def __init__(self):
        self.decisions = 0

    def begin_deal(self, start):
        if start.context.deal_number == 3:
            raise KeyError("deal \\ud800 \\x1b[2J " + "x" * 300)

    def act(self, observation):
        self.decisions += 1
        if self.decisions == 1:
            raise ValueError("no \\ud800 luck \\x1b[2J")
        if self.decisions == 2:
            return {"action": "dance", "amount": "\\ud800"}
        return "call" if observation.to_call else "check"
'''


def test_one_bug_reads_the_same_in_process_and_sandboxed(tmp_path: Path) -> None:
    """The same bot's faults, played in this process and in the sandbox: the same kinds
    and the same words (escaped alike: a lone surrogate or an escape sequence in the
    bot's message included), wherever in the session each is reported."""
    folder = tmp_path / "buggy"
    folder.mkdir()
    (folder / "bot.py").write_text(BUGGY_BOT)
    spec = f"{folder / 'bot.py'}:Buggy"
    faults: dict[bool, list[tuple[FaultKind, str]]] = {}
    for trusted in (True, False):
        seat = open_seat(spec, name="buggy", limits=LIMITS, trusted=trusted)
        assert isinstance(seat, ProcessSeat) is not trusted
        try:
            result = play([seat, InProcessSeat(load_agent(RANDOM), "random")], deals=6)
        finally:
            seat.close()
        faults[trusted] = sorted((fault.kind, fault.detail) for fault in result.faults)
    assert [kind for kind, _ in faults[True]] == sorted(
        [FaultKind.ERROR, FaultKind.PROTOCOL, FaultKind.ERROR]
    )
    assert faults[False] == faults[True]
    assert any(
        detail.startswith("act: ValueError: no \\ud800 luck \\x1b[2J at bot.py:")
        for _, detail in faults[True]
    )
    assert any(detail.startswith("begin_deal: KeyError: ") for _, detail in faults[True])
