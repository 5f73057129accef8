"""Untrusted text made safe to show: whatever the input, one printable line that encodes
as UTF-8; printable text unchanged; escaping twice the same as once."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dp_arena.text import excerpt, printable

# Every code point, surrogates and unassigned ones included.
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=60)


@given(ANY_TEXT)
def test_any_text_becomes_one_printable_line(value: str) -> None:
    shown = printable(value)
    assert shown.isprintable()
    shown.encode("utf-8")
    assert printable(shown) == shown


@given(st.text(st.characters(categories=("L", "N", "P", "S")), max_size=60))
def test_printable_text_is_unchanged(value: str) -> None:
    assert printable(value) == value


@given(ANY_TEXT, st.integers(1, 40))
def test_a_limit_bounds_the_length(value: str, limit: int) -> None:
    shown = printable(value, limit)
    assert len(shown) <= limit + 3
    assert shown.isprintable()


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),  # clear the screen
        ("\x1b]0;owned\x07", "\\x1b]0;owned\\x07"),  # set the terminal's title
        ("ok\rFAIL", "ok\\rFAIL"),  # overwrite the line
        ("one\ntwo", "one\\ntwo"),  # forge a line
        ("\u202edesrever", "\\u202edesrever"),  # right-to-left override
        ("\u2066isolate\u2069", "\\u2066isolate\\u2069"),
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("lone \ud800", "lone \\ud800"),
        ("nul\x00", "nul\\x00"),
        ("tag \U000e0041", "tag \\U000e0041"),
    ],
)
def test_terminal_attacks_are_shown_not_obeyed(raw: str, shown: str) -> None:
    assert printable(raw) == shown


@given(st.binary(max_size=200))
def test_any_bytes_become_a_printable_excerpt(data: bytes) -> None:
    shown = excerpt(data, 40)
    assert shown.isprintable()
    assert len(shown) <= 43


def test_an_excerpt_keeps_utf8_and_shows_other_bytes() -> None:
    assert excerpt("débug: é".encode()) == "débug: é"
    assert excerpt(b"a\xffb\x1bc") == "a\\xffb\\x1bc"
