"""What a bot writes reaches the organiser's terminal only escaped, and what the dealer
says about a bot reads well to its author in any language.

Hostile bots put escape sequences (clear the screen, set the window title), carriage
returns, newlines that forge a report line, BEL, NUL and bidi overrides in every string
they control: their name, their stderr, their error messages, a submission's version
label. Careless bots print debug output on stdout: each such line costs one fault, never
a decision, and the fault quotes the line as plain text with a hint.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dp_arena.agents import InProcessSeat
from dp_arena.cli import main
from dp_arena.results import FaultKind
from dp_arena.sandbox import open_seat

from .conftest import HOSTILE, LIMITS, PYTHON, assert_nothing_left, play, reference_seat

TERMINAL_BOT = f"{PYTHON} -I {HOSTILE / 'terminal' / 'bot.py'}"
ATTACK = "\x1b[2J\x1b[H\x1b]0;pwned\x07\rresult: PASS\n\u202eevil\u2066\x00"
SHOWN = "\\x1b[2J\\x1b[H\\x1b]0;pwned\\x07\\rresult: PASS\\n\\u202eevil\\u2066\\x00"
HINT = "(print debug output to stderr; stdout is for protocol messages only)"


def chatty(mode: str) -> str:
    return f"{PYTHON} -I {HOSTILE / 'chatty_stdout' / 'bot.py'} {mode}"


def assert_terminal_safe(text: str) -> None:
    """Every line printable: no escape sequence, carriage return, BEL, NUL or bidi
    control, and no line break but the ones between lines."""
    for line in text.split("\n"):
        assert line.isprintable(), repr(line)


# -- terminal safety -----------------------------------------------------------------------


def test_check_agent_shows_a_hostile_bots_words_escaped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check-agent", TERMINAL_BOT, "--states", "6", "--deals", "2"]) == 1
    captured = capsys.readouterr()
    assert_terminal_safe(captured.out)
    assert_terminal_safe(captured.err)
    lines = captured.out.split("\n")
    assert f"the bot calls itself 'T{SHOWN}'" in captured.out
    assert "result: FAIL" in lines and "result: PASS" not in lines  # no forged verdict
    problems = [line for line in lines if line.startswith("  - ")]
    assert any(f"boom{SHOWN}" in line for line in problems)
    assert any("CRASH" in line and f"stderr ends: {SHOWN}" in line for line in problems)


def test_match_shows_a_hostile_bots_words_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", TERMINAL_BOT, "calling-station", "--deals", "3", "--seed", "1"]) == 0
    captured = capsys.readouterr()
    assert_terminal_safe(captured.out)
    assert_terminal_safe(captured.err)
    assert f"boom{SHOWN}" in captured.out


def test_a_python_bots_exception_and_stderr_are_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "raiser"
    folder.mkdir()
    (folder / "bot.py").write_text(
        "import sys\n"
        f"ATTACK = {ATTACK!r}\n"
        "class Bot:\n"
        "    def act(self, observation):\n"
        "        sys.stderr.write(ATTACK)\n"
        "        raise ValueError(ATTACK)\n"
    )
    assert main(["check-agent", f"{folder / 'bot.py'}:Bot", "--states", "3", "--deals", "1"]) == 1
    captured = capsys.readouterr()
    assert_terminal_safe(captured.out)
    assert f"ValueError: {SHOWN}" in captured.out


def test_a_trusted_bots_exception_is_escaped_in_its_fault() -> None:
    """In-process too: a fault's detail is printable whoever made it."""

    class Raiser:
        def act(self, observation: object) -> str:
            raise ValueError(ATTACK)

    result = play([InProcessSeat(Raiser(), "raiser"), reference_seat()], deals=2)
    assert result.faults and all(fault.detail.isprintable() for fault in result.faults)
    assert f"ValueError: {SHOWN}" in result.faults[0].detail


def test_a_version_label_with_control_characters_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "labelled"
    folder.mkdir()
    (folder / "bot.py").write_text(
        "class Bot:\n    def act(self, observation):\n        return 'fold'\n"
    )
    label = json.dumps("1.0\x1b[2J\r\u202e\x07")  # TOML basic strings take JSON's escapes
    (folder / "bot.toml").write_text(
        f'name = "labelled"\nversion = {label}\nentry = "bot.py:Bot"\n'
    )
    code = main(["submit", str(folder), "--registry", str(tmp_path / "registry")])
    out = capsys.readouterr().out
    assert code == 1
    assert_terminal_safe(out)
    assert "refused (bad_manifest)" in out and "version must be printable text" in out
    assert "'1.0\\x1b[2J\\r\\u202e\\x07'" in out


# -- fault messages for bots in any language -----------------------------------------------


def test_debug_output_on_stdout_costs_one_fault_a_line_and_never_a_decision() -> None:
    """The bot's decisions stand: its table plays exactly as its quiet twin's does. Its
    one stray line is one PROTOCOL fault, at a notification, quoting the line."""
    seats = {
        mode: open_seat(chatty(mode), name="chatty", limits=LIMITS) for mode in ("once", "none")
    }
    try:
        results = {mode: play([seat, reference_seat()], deals=4) for mode, seat in seats.items()}
    finally:
        for seat in seats.values():
            seat.close()
    assert [deal.nets for deal in results["once"].deals] == [
        deal.nets for deal in results["none"].deals
    ]
    assert results["none"].faults == ()
    (fault,) = results["once"].faults
    assert fault.kind is FaultKind.PROTOCOL and fault.street is None and fault.substituted is None
    assert fault.detail == (
        "stray line on stdout: not JSON (Expecting value at column 1):"
        f" 'debug: thinking about request 1' {HINT}"
    )
    assert_nothing_left(list(seats.values()))


def test_match_says_between_deals_for_a_fault_at_a_notification(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["match", chatty("every"), "calling-station", "--deals", "6", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    faults = out.split("First faults:\n")[1].split("\n")
    assert faults and all("between deals (deal " in line for line in faults if line)
    assert " None" not in out and "b'" not in out
    assert f"'debug: thinking about request 1' {HINT}" in out
    assert "'debug: deal over, net " in out


def test_an_answer_written_as_plain_text_says_what_came_instead() -> None:
    bot = HOSTILE / "plain_text" / "bot.py"
    limits = LIMITS.with_changes(action_timeout=0.3, time_bank=0.3)
    seat = open_seat(f"{PYTHON} -I {bot}", name="plain", limits=limits)
    try:
        result = play([seat, reference_seat()], deals=2)
    finally:
        seat.close()
    decision_faults = [fault for fault in result.faults if fault.street is not None]
    assert decision_faults and {fault.kind for fault in result.faults} == {FaultKind.PROTOCOL}
    assert decision_faults[0].detail == (
        "no answer within 0.6 s (action time + time bank); instead it wrote a stray line:"
        f" not JSON (Expecting value at column 1): 'call' {HINT}"
    )
    assert len(result.faults) <= 3  # each stray line counted once: in its decision's fault


def test_a_line_without_its_newline_is_named_in_the_timeout() -> None:
    bot = HOSTILE / "no_newline" / "bot.py"
    limits = LIMITS.with_changes(action_timeout=0.3, time_bank=0.3)
    seat = open_seat(f"{PYTHON} -I {bot}", name="unflushed", limits=limits)
    try:
        result = play([seat, reference_seat()], deals=1)
    finally:
        seat.close()
    first = result.faults[0]
    assert first.kind is FaultKind.TIMEOUT
    assert first.detail == (
        "no answer within 0.6 s (action time + time bank); 27 bytes came without a newline:"
        ' \'{"id": 1, "action": "fold"}\' (end each message with a newline and flush stdout)'
    )
