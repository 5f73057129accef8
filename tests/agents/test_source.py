"""Reading a bot's source in the dealer within bounds: too large or too deeply nested is a
refusal naming the file, never a crash; ordinary files read as before."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from dp_arena.agents.source import MAX_SOURCE_BYTES, MAX_TOKENS, parse_source, read_source
from dp_arena.agents.spec import class_problem, parse_spec, project_imports, python_classes
from dp_arena.errors import AgentError

BOT = "class Bot:\n    def act(self, observation):\n        return 'check'\n"


def bot_file(tmp_path: Path, tail: str = "") -> Path:
    path = tmp_path / "bot.py"
    path.write_text(BOT + tail)
    return path


@pytest.mark.parametrize(
    "nested",
    [
        "+".join(["1"] * 20_000),  # RecursionError while the tree is built
        "-" * 40_000 + "1",  # MemoryError: the parser's own stack
        "not " * 30_000 + "x",
        "a" + ".b" * 30_000,
        "f" + "()" * 20_000,
        "1 if x else " * 20_000 + "1",
    ],
    ids=["sum", "negation", "not", "attributes", "calls", "conditionals"],
)
def test_deep_nesting_is_a_refusal_naming_the_file(tmp_path: Path, nested: str) -> None:
    path = bot_file(tmp_path, f"LEVELS = {nested}\n")
    with pytest.raises(AgentError, match=f"{path} is too deeply nested to read"):
        python_classes(path)
    problem = class_problem(path, parse_spec(f"{path}:Bot"))
    assert problem is not None and "too deeply nested" in problem
    assert project_imports(path) == []  # the template's reading: none named, no crash


def test_deep_nesting_is_a_refusal_in_a_thread_too(tmp_path: Path) -> None:
    """The server reads in worker threads, whose stacks are the platform's default."""
    path = bot_file(tmp_path, "LEVELS = " + "+".join(["1"] * 20_000) + "\n")
    errors: list[BaseException] = []

    def read() -> None:
        try:
            python_classes(path)
        except (AgentError, RecursionError, MemoryError) as error:
            errors.append(error)

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    assert len(errors) == 1 and isinstance(errors[0], AgentError)


def test_too_many_tokens_or_bytes_is_a_refusal_before_parsing(tmp_path: Path) -> None:
    # One name after another: the densest tree, some 700 bytes of memory a byte of source.
    path = bot_file(tmp_path, "TABLE = [" + "a," * (MAX_TOKENS // 2) + "]\n")
    with pytest.raises(AgentError, match=f"{path} is too large to read: over 100,000 tokens"):
        python_classes(path)
    path.write_text(BOT + "#" * MAX_SOURCE_BYTES)  # a comment has one token
    with pytest.raises(AgentError, match="is too large to read: over 1024 KiB"):
        python_classes(path)
    with pytest.raises(AgentError, match="too large"):
        parse_source(b"#" * (MAX_SOURCE_BYTES + 1), path)


def test_a_file_just_within_the_bounds_is_read(tmp_path: Path) -> None:
    path = bot_file(tmp_path, "TABLE = [" + "1," * (MAX_TOKENS // 2 - 100) + "]\n")
    assert python_classes(path) == ({"Bot", "TABLE"}, ["Bot"])


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "bot.py"
    os.mkfifo(fifo)
    with pytest.raises(AgentError, match="is not a regular file"):
        read_source(fifo)


def test_ordinary_files_keep_their_did_you_mean_and_syntax_errors(tmp_path: Path) -> None:
    path = bot_file(tmp_path)
    problem = class_problem(path, parse_spec(f"{path}:Bto"))
    assert problem == f"{path} has no class Bto; did you mean {path}:Bot?"
    path.write_text("class Bot(:\n")
    problem = class_problem(path, parse_spec(f"{path}:Bot"))
    assert problem is not None and "is not valid Python (line 1" in problem


def test_a_star_import_may_bind_the_class(tmp_path: Path) -> None:
    path = bot_file(tmp_path)
    path.write_text("from strategy import *\n")
    assert class_problem(path, parse_spec(f"{path}:Bot")) is None
