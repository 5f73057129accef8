"""Reading a bot's Python source in the dealer: its syntax tree, within bounds.

The dealer reads a Python bot's file, running none of it, to check a spec before
anything starts (does the class exist? did you mean ...?) and to see which dp-arena
modules it names. The file is the bot author's, so reading it must not stop the dealer:

- Python's parser recurses once per level of nesting. A file holding one expression of
  a few thousand terms (``x = 1+1+1+...``) makes ``ast.parse`` raise ``RecursionError``
  (or ``MemoryError`` when the parser's own stack overflows: ``x = ------1``), which no
  caller expected. Here either is a refusal: the file is too deeply nested to read.
- A syntax tree costs up to about 700 bytes of memory per byte of source (one name
  after another, ``[a,a,a,...]``), so 64 MiB of such source would take the dealer's
  memory with it. A file is read only up to :data:`MAX_SOURCE_BYTES` and parsed only
  when it has at most :data:`MAX_TOKENS` tokens (counted first by the streaming
  tokenizer, which holds one line at a time): over either, a refusal, the file too large
  to read. The worst file within both costs about 70 MB for a moment.

Ordinary code has about 150,000 tokens a MiB, so a file of up to some 650 KiB of it
fits, several times the largest hand-written bot; data belongs in a data file (JSON,
NumPy), which the dealer never parses. The refusals are
:class:`~dp_arena.errors.AgentError`, naming the file; a file that is not valid Python
raises ``SyntaxError`` (or ``ValueError`` for a null byte) as ``ast.parse`` does.
"""

from __future__ import annotations

import ast
import io
import os
import stat
import tokenize
from pathlib import Path

from dp_arena.errors import AgentError

__all__ = ["MAX_SOURCE_BYTES", "MAX_TOKENS", "parse_source", "read_source"]

MAX_SOURCE_BYTES = 1 << 20
MAX_TOKENS = 100_000


def read_source(path: Path) -> bytes:
    """The bytes of the Python file at ``path``, refused (:class:`AgentError`) when it
    is not a regular file or is over :data:`MAX_SOURCE_BYTES`; ``OSError`` passes through."""
    # Non-blocking, so that a fifo in a bot's place cannot hold the dealer at open.
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with open(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise AgentError(f"{path} is not a regular file")
        source = file.read(MAX_SOURCE_BYTES + 1)
    if len(source) > MAX_SOURCE_BYTES:
        raise AgentError(
            f"{path} is too large to read: over {MAX_SOURCE_BYTES // 1024} KiB of Python source"
            " (keep data in a data file beside it)"
        )
    return source


def parse_source(source: bytes, path: Path) -> ast.Module:
    """The syntax tree of ``source`` (the file at ``path``), or :class:`AgentError` when
    it is too large or too deeply nested to read; ``SyntaxError`` and ``ValueError`` pass
    through."""
    if len(source) > MAX_SOURCE_BYTES:
        raise AgentError(
            f"{path} is too large to read: over {MAX_SOURCE_BYTES // 1024} KiB of Python source"
        )
    if _over_tokens(source):
        raise AgentError(
            f"{path} is too large to read: over {MAX_TOKENS:,} tokens of Python source"
            " (keep data in a data file beside it)"
        )
    try:
        return ast.parse(source, filename=str(path))
    except (RecursionError, MemoryError) as error:
        raise AgentError(
            f"{path} is too deeply nested to read (Python's parser gave up with"
            f" {type(error).__name__}: an expression or statement nested thousands of levels"
            " deep)"
        ) from None


def _over_tokens(source: bytes) -> bool:
    """Whether ``source`` has more than :data:`MAX_TOKENS` tokens; counting stops there.
    Source the tokenizer refuses is left for the parser to report."""
    tokens = tokenize.tokenize(io.BytesIO(source).readline)
    try:
        for count, _ in enumerate(tokens, start=1):
            if count > MAX_TOKENS:
                return True
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
        return False
    return False
