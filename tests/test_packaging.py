"""dp-arena installs without a clone: the wheel carries the whole tool (the built-in bots,
the bot skeletons, the server's templates and migrations, the evaluator's tables), and
an installed copy finds its built-in bots inside itself.

The fast tests build the wheel (about 2 s) and read it, then play a match from the wheel's
files unpacked beside the test. The slow test is the author's path end to end: a fresh
virtual environment, ``pip install`` of the wheel with every dependency (about 30 s from
a local wheel cache, minutes from PyPI), then ``new-bot``, ``check-agent``, ``match`` and
a small event with ``verify``, each run from an empty folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from dp_arena.agents.spec import AGENTS_DIR, BUILTINS

REPO = Path(__file__).resolve().parents[1]


def build_wheel(out: Path) -> Path:
    """The project's wheel, built with this environment's setuptools (no download)."""
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"),
            *("--wheel-dir", str(out), str(REPO)),
        ],
        check=True,
        capture_output=True,
        env={**os.environ, "PIP_NO_INPUT": "1"},
    )
    [wheel] = out.glob("dp_arena-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_carries_the_built_in_bots_and_everything_the_tool_reads(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for entry in BUILTINS.values():
        assert f"dp_arena/builtin_bots/{entry.split(':')[0]}" in names
    assert "dp_arena/builtin_bots/learned_weights.json" in names  # the learned bot's policy
    for needed in (
        "dp_arena/py.typed",
        "dp_arena/engine/evaluator_tables.bin",
        "dp_arena/server/templates/base.html",
        "dp_arena/server/migrations/env.py",
        "dp_arena/server/migrations/versions/v0001_initial.py",
        "dp_arena/leaderboard/replay_assets/replay.js",
    ):
        assert needed in names, needed
    # Every skeleton of dp-arena new-bot, each file of it.
    skeletons = REPO / "dp_arena" / "skeletons"
    for template in skeletons.rglob("*"):
        if template.is_file() and "__pycache__" not in template.parts:
            assert f"dp_arena/skeletons/{template.relative_to(skeletons).as_posix()}" in names
    [entry_points] = [name for name in names if name.endswith(".dist-info/entry_points.txt")]
    assert "dp-arena = dp_arena.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
    assert not [name for name in names if "__pycache__" in name or name.startswith("tests/")]


def test_an_installed_copy_finds_its_built_in_bots_inside_itself(
    wheel: Path, tmp_path: Path
) -> None:
    # The wheel's files as pip lays them out, first on the path of a fresh interpreter: its
    # dp_arena is the wheel's, and the built-ins it plays are the wheel's own.
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    program = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import dp_arena\n"
        "from dp_arena.agents.spec import AGENTS_DIR\n"
        "from dp_arena.match import MatchConfig, play_match\n"
        "result = play_match(MatchConfig(('tag', 'random'), deals=20, seed=1))\n"
        "print(dp_arena.__file__, AGENTS_DIR, sum(score.net for score in result.scores))\n"
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    out = subprocess.run(
        [sys.executable, "-c", program, str(site)],
        cwd=empty,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert out == [
        str(site / "dp_arena" / "__init__.py"),
        str(site / "dp_arena" / "builtin_bots"),
        "0",  # the nets of a match sum to zero
    ]
    # Here, in the clone, the same lookup finds the repository's own folder.
    assert AGENTS_DIR == REPO / "agents"


@pytest.mark.slow
def test_from_an_empty_folder_pip_install_of_the_wheel_gives_the_whole_tool(
    wheel: Path, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    started = time.monotonic()
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        capture_output=True,
    )
    print(f"pip install of the wheel with its dependencies: {time.monotonic() - started:.1f} s")
    author = tmp_path / "author"
    author.mkdir()
    tool = str(venv / "bin" / "dp-arena")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}

    def run(*arguments: str) -> str:
        done = subprocess.run(
            [tool, *arguments], cwd=author, capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, (arguments, done.stdout, done.stderr)
        return done.stdout

    run("new-bot", "mybot", "--lang", "python")
    assert "result: PASS" in run("check-agent", "mybot/")
    match = run("match", "mybot/", "random", "--deals", "100", "--seed", "1")
    assert "mybot" in match and "faults" in match
    (author / "event.toml").write_text(
        '[event]\nname = "First event"\nformat = "quickplay"\n\n'
        '[[entrants]]\nagent = "mybot/"\n\n[field]\ncount = 3\nfrom = ["random", "tag"]\n'
    )
    out = run("run", "event.toml", "--run-dir", "runs/first", "--executor", "serial", "--quiet")
    assert "results digest" in out
    assert "every check passed" in run("verify", "runs/first", "--replay")
