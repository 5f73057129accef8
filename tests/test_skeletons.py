"""``dp-arena new-bot NAME --lang LANG``: every skeleton, as it is written, passes its own
test, builds where it must, passes ``check-agent`` in the sandbox and beats the random
bot in a ``match`` (the interval of its score above zero), and names it cannot take are
refused."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dp_arena.cli import main
from dp_arena.skeletons import LANGUAGES, TEMPLATES

REPO = Path(__file__).resolve().parents[1]
# What each skeleton's own test needs beyond dp-arena (the sandbox runs node and perl too).
NEEDS = {"python": [], "c": ["cc", "make"], "node": ["node"], "perl": ["perl"]}
OWN_TEST = {
    "python": [sys.executable, "bot/test_bot.py"],
    "c": ["make", "-s", "-C", "bot", "test"],
    "node": ["node", "bot/bot.test.js"],
    "perl": ["perl", "bot/test_bot.pl"],
}


def test_every_language_has_a_skeleton_with_its_parts() -> None:
    assert sorted(LANGUAGES) == sorted(NEEDS) == ["c", "node", "perl", "python"]
    for language in LANGUAGES:
        names = {path.name for path in (TEMPLATES / language).glob("*.tmpl")}
        assert {"bot.toml.tmpl", "README.md.tmpl"} <= names, language
        assert any(name.startswith(("test_", "bot.test")) for name in names), language
        readme = (TEMPLATES / language / "README.md.tmpl").read_text()
        assert readme.count("\n1. **") == readme.count("\n2. **") == readme.count("\n3. **") == 1


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_a_skeleton_as_written_passes_its_test_and_the_check_and_beats_random(
    language: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    missing = [tool for tool in NEEDS[language] if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed here")
    monkeypatch.chdir(tmp_path)
    assert main(["new-bot", "bot", "--lang", language]) == 0
    out = capsys.readouterr().out
    assert "made bot/" in out and "dp-arena check-agent bot/" in out
    done = subprocess.run(OWN_TEST[language], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    if language == "c":
        subprocess.run(["make", "-s", "-C", "bot"], check=True, capture_output=True)
    assert main(["check-agent", "bot/"]) == 0, capsys.readouterr().out
    assert "result: PASS" in capsys.readouterr().out
    assert main(["match", "bot/", "random", "--deals", "300", "--seed", "1", "--json"]) == 0
    [mine, _] = json.loads(capsys.readouterr().out)["agents"]
    assert mine["name"] == "bot" and sum(mine["faults"].values()) == 0
    assert mine["ci95"][0] > 0, f"{mine['mbb_per_deal']} mbb/deal, 95% CI {mine['ci95']}"


def test_the_python_skeleton_reads_as_the_projects_code(tmp_path: Path) -> None:
    assert main(["new-bot", "tidy", "--dir", str(tmp_path)]) == 0
    ruff = [sys.executable, "-m", "ruff"]
    config = ["--config", str(REPO / "pyproject.toml")]
    for command in (["check", *config], ["format", "--check", *config]):
        done = subprocess.run([*ruff, *command, str(tmp_path / "tidy")], capture_output=True)
        assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()


@pytest.mark.parametrize(
    ("name", "refusal"),
    [
        ("My Bot", "a bot's name is 1 to 64 of a-z 0-9"),
        ("tag", "the name of a built-in bot"),
        ("here", "is already there"),
    ],
)
def test_a_name_it_cannot_take_is_refused(
    name: str, refusal: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "here").mkdir()
    assert main(["new-bot", name, "--dir", str(tmp_path), "--lang", "c"]) == 2
    assert refusal in capsys.readouterr().err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["here"]
