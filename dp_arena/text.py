"""Text from bots and submitters, made safe to show on a terminal or write to a file.

A bot's stderr, its error messages, the name it gives itself and a submission's version
label are untrusted: written raw, an escape sequence can rewrite the organiser's screen,
a carriage return or a newline can forge a line of a report, a bidi override can make a
line read backwards, and a lone surrogate cannot even be encoded as UTF-8. Everything
such text passes through :func:`printable` before it is shown or stored: every character
Python does not call printable (controls, format characters such as bidi overrides and
zero-width marks, separators, surrogates, unassigned code points) becomes a visible
escape, and the result is one line. :func:`excerpt` does the same for raw bytes.

>>> print(printable("red \\x1b[31mtext\\rover\\u202eesrever\\n"))
red \\x1b[31mtext\\rover\\u202eesrever\\n
>>> print(excerpt(b"debug: \\xff\\x00 hand 3", limit=15))
debug: \\xff\\x00...

Refusals that name a file, a class or a bot that is not there end with
:func:`did_you_mean`, the closest names that are.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean", "excerpt", "printable"]

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(character: str) -> str:
    named = _NAMED.get(character)
    if named is not None:
        return named
    code = ord(character)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(value: object, limit: int | None = None) -> str:
    """``value`` as one line of printable text: each non-printable character is escaped
    (``\\x1b``, ``\\r``, ``\\n``, ``\\u202e``, ``\\ud800``...). With ``limit``, at most
    that many characters, ``...`` added where it was cut. Printable text is returned
    as it is, so escaping twice changes nothing.

    >>> printable("plain"), printable("\\x07bell"), printable("x" * 10, limit=4)
    ('plain', '\\\\x07bell', 'xxxx...')
    """
    text = value if isinstance(value, str) else str(value)
    cut = limit is not None and len(text) > limit
    if cut:
        text = text[:limit]
    if not text.isprintable():
        text = "".join(
            character if character.isprintable() else _escape(character) for character in text
        )
        if limit is not None and len(text) > limit:
            text, cut = text[:limit], True
    return text + "..." if cut else text


def excerpt(data: bytes, limit: int = 80) -> str:
    """The start of raw bytes as printable text: UTF-8 where the bytes are UTF-8, each
    other byte shown as ``\\xNN``."""
    head = data[: limit * 4].decode("utf-8", "backslashreplace")
    text = printable(head, limit)
    if len(data) > limit * 4 and not text.endswith("..."):
        text += "..."
    return text


def did_you_mean(name: str, candidates: Iterable[str], *, cutoff: float = 0.6) -> str:
    """ "; did you mean 'x'?" naming up to three of ``candidates`` closest to ``name``,
    or nothing when none is close.

    >>> did_you_mean("bott.py", ["bot.py", "helpers.py"])
    "; did you mean 'bot.py'?"
    >>> did_you_mean("zzz.py", ["bot.py"])
    ''
    """
    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=cutoff)
    return f"; did you mean {' or '.join(repr(match) for match in close)}?" if close else ""
