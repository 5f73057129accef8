"""Bot files compiled ahead (what a sandbox's warm template does for its seats): loading
runs the compiled code, without compiling the file again, only while the file still
holds the source that was compiled. And the project's modules a file imports, which a
template imports for its seats, read from the file's syntax without running it."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest

from dp_arena.agents.spec import load_agent, precompile, project_imports, python_classes

BOT = """
class Bot:
    says = {word!r}

    def act(self, observation):
        return "check"
"""


def _write(folder: Path, word: str) -> Path:
    path = folder / f"bot_{word}.py"
    path.write_text(BOT.format(word=word))
    return path


def _refuse_compiling(monkeypatch: pytest.MonkeyPatch, path: Path) -> list[str]:
    """From now on, compiling ``path`` fails the test; the attempts are listed."""
    attempts: list[str] = []
    real = builtins.compile

    def compile_(source: Any, filename: Any, *args: Any, **kwargs: Any) -> Any:
        if str(filename) == str(path):
            attempts.append(str(filename))
        return real(source, filename, *args, **kwargs)

    monkeypatch.setattr(builtins, "compile", compile_)
    return attempts


def test_a_precompiled_file_loads_without_compiling_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, "ahead")
    precompile(path)
    attempts = _refuse_compiling(monkeypatch, path.resolve())
    assert load_agent(f"{path}:Bot").says == "ahead"
    assert attempts == []


def test_a_file_not_precompiled_is_compiled_as_usual(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, "plain")
    attempts = _refuse_compiling(monkeypatch, path.resolve())
    assert load_agent(f"{path}:Bot").says == "plain"
    assert attempts == [str(path.resolve())]  # the check above would see a cached load


def test_precompiled_code_runs_only_for_the_source_compiled(tmp_path: Path) -> None:
    path = _write(tmp_path, "first")
    precompile(path)
    path.write_text(BOT.format(word="second"))  # the file changed after it was compiled
    assert load_agent(f"{path}:Bot").says == "second"


def test_a_file_that_cannot_compile_is_left_for_loading_to_report(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("class Bot(:\n")
    precompile(path)  # no exception: loading says what is wrong, as before
    with pytest.raises(Exception, match=r"broken\.py"):
        load_agent(f"{path}:Bot")


def test_a_file_read_for_its_classes_is_read_again_when_it_changes(tmp_path: Path) -> None:
    """Its classes are kept by source (a field of a thousand entrants of one file reads it
    once): a file edited in between is read afresh."""
    path = tmp_path / "bots.py"
    path.write_text("class One:\n    def act(self, observation):\n        return 'check'\n")
    assert python_classes(path) == ({"One"}, ["One"])
    first = python_classes(path)
    first[0].add("Spoiled")  # what a caller is given is its own
    assert python_classes(path) == ({"One"}, ["One"])
    path.write_text("class Two:\n    def act(self, observation):\n        return 'check'\n")
    assert python_classes(path) == ({"Two"}, ["Two"])


def test_the_project_modules_a_file_imports_are_read_from_its_syntax(tmp_path: Path) -> None:
    path = tmp_path / "bot.py"
    path.write_text(
        "import os, dp_arena.engine\n"
        "from dp_arena.learn.bot import PolicyBot\n"
        "from . import sibling\n"  # relative: the bot's own
        "from dp_arena.engine import *\n"
        "import dp_arena_helpers\n"  # not the project's, though it starts alike
        "def later():\n"
        "    from dp_arena.learn import policy\n"
        "raise SystemExit('never run')\n"
    )
    assert project_imports(path) == [
        "dp_arena.engine",
        "dp_arena.learn.bot",
        "dp_arena.learn.bot.PolicyBot",
        "dp_arena.learn",
        "dp_arena.learn.policy",
    ]
    broken = tmp_path / "broken.py"
    broken.write_text("import dp_arena.engine\ndef (:\n")
    assert project_imports(broken) == []
    assert project_imports(tmp_path / "missing.py") == []
