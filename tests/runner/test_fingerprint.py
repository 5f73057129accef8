"""A bot's code hash is the code it is made of: a file bot's file and the modules of its
folder it imports (stated), a bot folder's whole folder, nothing at all for a bot whose
files are not there; and a replay still checks the bots of a run recorded before."""

from __future__ import annotations

from pathlib import Path

from dp_arena.runner.fingerprint import bot_codes, bot_fingerprints, legacy_fingerprint
from dp_arena.runner.replay import code_problems
from dp_arena.tournament.config import Entrant

BOT = (
    "from helpers import RAISE\n\n"
    "class {name}:\n    def act(self, observation):\n        return 'call'\n"
)


def _entrant(player: str, spec: str) -> Entrant:
    return Entrant(player, spec, False, spec)


def _hash(spec: str) -> str:
    return bot_fingerprints([_entrant("p", spec)])[spec]


def _two_bots(folder: Path) -> tuple[str, str]:
    folder.mkdir(parents=True)
    (folder / "alice.py").write_text(BOT.format(name="Alice"))
    (folder / "bob.py").write_text(
        "class Bob:\n    def act(self, observation):\n        return 'call'\n"
    )
    (folder / "helpers.py").write_text("RAISE = 3\n")
    (folder / "notes.txt").write_text("not code\n")
    return f"{folder / 'alice.py'}:Alice", f"{folder / 'bob.py'}:Bob"


def test_two_file_bots_in_one_folder_hash_apart_and_each_covers_what_it_imports(
    tmp_path: Path,
) -> None:
    alice, bob = _two_bots(tmp_path / "bots")
    before = {spec: _hash(spec) for spec in (alice, bob)}
    assert before[alice] != before[bob]
    assert all(value.startswith("file:") for value in before.values())
    # Alice imports helpers.py: it is hers; nothing else of the folder is either's.
    (tmp_path / "bots" / "helpers.py").write_text("RAISE = 4\n")
    (tmp_path / "bots" / "notes.txt").write_text("changed\n")
    assert _hash(alice) != before[alice] and _hash(bob) == before[bob]
    codes = bot_codes([_entrant("alice", alice), _entrant("bob", bob)])
    assert codes["alice"]["imports"] == ["helpers.py"]
    assert codes["bob"]["imports"] == []
    assert codes["alice"]["sha256"] == _hash(alice).removeprefix("file:")


def test_imports_are_followed_through_modules_and_packages(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    (folder / "strategy").mkdir(parents=True)
    (folder / "bot.py").write_text(
        "import tables\n\nclass Bot:\n    def act(self, o):\n        return 'call'\n"
    )
    (folder / "tables.py").write_text("from strategy.chart import CHART\n")
    (folder / "strategy" / "__init__.py").write_text("")
    (folder / "strategy" / "chart.py").write_text("CHART = {}\n")
    codes = bot_codes([_entrant("p", f"{folder / 'bot.py'}:Bot")])
    assert codes["p"]["imports"] == ["strategy/__init__.py", "strategy/chart.py", "tables.py"]


def test_a_bot_folder_hashes_whole_and_a_file_in_it_the_same(tmp_path: Path) -> None:
    folder = tmp_path / "mybot"
    alice, _ = _two_bots(folder)
    (folder / "bot.toml").write_text('name = "mybot"\nversion = "1"\nentry = "alice.py:Alice"\n')
    whole = _hash(f"{folder}/")
    assert whole.startswith("folder:") and _hash(alice) == whole
    (folder / "notes.txt").write_text("its data is its own too\n")
    assert _hash(f"{folder}/") != whole
    # Caches that running its tests leaves behind are not the bot.
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "alice.cpython-311.pyc").write_bytes(b"\0")
    (folder / ".pytest_cache").mkdir()
    (folder / ".pytest_cache" / "README.md").write_text("cache")
    assert _hash(f"{folder}/") == _hash(alice)
    assert bot_codes([_entrant("p", f"{folder}/")])["p"]["kind"] == "folder"


def test_a_bot_whose_files_are_not_there_has_no_hash(tmp_path: Path) -> None:
    missing = [
        f"{tmp_path / 'nothing.py'}:Bot",
        f"{tmp_path / 'nowhere'}/",
        f"node {tmp_path / 'missing.js'}",
        "node missing.js",
        f"acpc:{tmp_path / 'player'} {{game}} {{host}} {{port}}",
    ]
    codes = bot_codes([_entrant(f"p{index}", spec) for index, spec in enumerate(missing)])
    for index, spec in enumerate(missing):
        assert _hash(spec).startswith("missing:"), spec
        assert codes[f"p{index}"]["sha256"] is None, spec
    # A command that names no file of its own is its words.
    assert _hash("python3 -c pass").startswith("command:")
    assert _hash("python3 -c pass") != _hash("python3 -c 'print(1)'")


def test_a_replay_checks_a_run_recorded_before_a_file_bot_was_hashed_alone(
    tmp_path: Path,
) -> None:
    alice, _ = _two_bots(tmp_path / "bots")
    entrant = _entrant("alice", alice)
    old = legacy_fingerprint(alice)
    assert old is not None and old.startswith("folder:")
    assert code_problems([entrant], {alice: old}) == []
    assert code_problems([entrant], {alice: _hash(alice)}) == []
    (tmp_path / "bots" / "alice.py").write_text(BOT.format(name="Alice") + "# edited\n")
    [problem] = code_problems([entrant], {alice: old})
    assert "its code hashes to file:" in problem and f"the run recorded {old}" in problem
