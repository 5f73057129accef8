"""Finding a module bot's files by path: the files Python's path finder would import,
found without importing anything (no ``__init__.py`` runs)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from dp_arena.agents.locate import locate_module
from dp_arena.agents.spec import module_problem, parse_spec
from dp_arena.errors import AgentError
from dp_arena.runner.fingerprint import _bot_fingerprint, folder_hash

# Each package's __init__.py would leave this marker if it ran.
LOUD = "import pathlib\n(pathlib.Path(__file__).parent / 'ran').write_text('ran')\n"
BOT = "class Bot:\n    def act(self, observation):\n        return 'check'\n"


def write(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def assert_nothing_ran(root: Path) -> None:
    assert list(root.rglob("ran")) == []


def test_a_module_in_a_regular_package_is_found_without_running_its_init(tmp_path: Path) -> None:
    write(tmp_path / "entry" / "bots" / "__init__.py", LOUD)
    write(tmp_path / "entry" / "bots" / "tight" / "__init__.py", LOUD)
    bot = write(tmp_path / "entry" / "bots" / "tight" / "play.py", BOT)
    modules = set(sys.modules)
    found = locate_module("bots.tight.play", [str(tmp_path / "entry")])
    assert (found.entry, found.top, found.file) == (
        tmp_path / "entry",
        tmp_path / "entry" / "bots",
        bot,
    )
    assert found.is_source
    assert set(sys.modules) == modules
    assert_nothing_ran(tmp_path)


def test_the_path_is_searched_in_order_and_a_package_beats_a_module_of_its_name(
    tmp_path: Path,
) -> None:
    write(tmp_path / "first" / "bots.py")
    write(tmp_path / "second" / "bots" / "__init__.py", LOUD)
    entries = [str(tmp_path / "missing"), str(tmp_path / "first"), str(tmp_path / "second")]
    assert locate_module("bots", entries).file == tmp_path / "first" / "bots.py"
    write(tmp_path / "first" / "bots" / "__init__.py", LOUD)
    assert locate_module("bots", entries).file == tmp_path / "first" / "bots" / "__init__.py"
    assert_nothing_ran(tmp_path)


def test_a_namespace_package_spans_folders_and_yields_to_a_regular_package(
    tmp_path: Path,
) -> None:
    write(tmp_path / "a" / "team" / "alice.py", BOT)
    write(tmp_path / "b" / "team" / "bob.py", BOT)
    entries = [str(tmp_path / "a"), str(tmp_path / "b")]
    bob = locate_module("team.bob", entries)
    # The portion that holds the module is the one its sandbox is shown.
    assert (bob.entry, bob.top, bob.file) == (tmp_path / "b", tmp_path / "b" / "team", bob.file)
    assert locate_module("team.alice", entries).top == tmp_path / "a" / "team"
    assert locate_module("team", entries).file is None
    # A regular package later on the path wins over namespace folders before it.
    write(tmp_path / "c" / "team" / "__init__.py", LOUD)
    write(tmp_path / "c" / "team" / "carol.py", BOT)
    entries.append(str(tmp_path / "c"))
    assert locate_module("team.carol", entries).top == tmp_path / "c" / "team"
    with pytest.raises(AgentError, match=re.escape("no module named 'team.bob'")):
        locate_module("team.bob", entries)
    assert_nothing_ran(tmp_path)


def test_what_is_not_there_is_named(tmp_path: Path) -> None:
    write(tmp_path / "bots" / "__init__.py", LOUD)
    write(tmp_path / "bots" / "plain.py", BOT)
    entries = [str(tmp_path)]
    with pytest.raises(AgentError, match="no module named 'robots' on the Python path"):
        locate_module("robots.plain", entries)
    with pytest.raises(AgentError, match=re.escape("no module named 'bots.fancy' in")):
        locate_module("bots.fancy", entries)
    with pytest.raises(AgentError, match=re.escape("bots.plain is a module, not a package")):
        locate_module("bots.plain.deeper", entries)
    assert_nothing_ran(tmp_path)


def test_a_module_specs_class_is_checked_from_its_syntax(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "bots" / "__init__.py", LOUD)
    write(tmp_path / "bots" / "plain.py", BOT)
    write(tmp_path / "bots" / "spaced" / "nothing.txt")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert module_problem(parse_spec("bots.plain:Bot")) is None
    problem = module_problem(parse_spec("bots.plain:Bto"))
    assert problem is not None and "did you mean bots.plain:Bot?" in problem
    problem = module_problem(parse_spec("bots.spaced:Bot"))
    assert problem is not None and "namespace package" in problem
    assert_nothing_ran(tmp_path)


def test_a_package_already_imported_from_off_the_path_is_found_where_it_was(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """dp-arena itself, in an editable install: its finder is not a folder of sys.path."""
    import dp_arena

    package = Path(dp_arena.__file__).resolve().parent
    monkeypatch.setattr(sys, "path", [entry for entry in sys.path if entry and "site" in entry])
    found = locate_module("dp_arena.agents.agent")
    assert found.top == package and found.file == package / "agents" / "agent.py"


def test_a_module_bots_fingerprint_is_its_packages_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "bots" / "__init__.py", LOUD)
    write(tmp_path / "bots" / "plain.py", BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _bot_fingerprint("bots.plain:Bot") == f"package:{folder_hash(tmp_path / 'bots')}"
    assert _bot_fingerprint("robots.plain:Bot") == "missing:module"
    assert_nothing_ran(tmp_path)
