"""A bot folder (its ``bot.toml``) is a spec everywhere a bot is named, and every refusal
to load a bot reads alike: what is missing, the closest names that are there, what to do,
and one exit status per kind (2: it names nothing; 3: it is there but does not load; 1:
it loads and fails its check)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from dp_arena.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "bots"
CALLER = (
    "class Caller:\n    def act(self, observation):\n"
    "        return 'call' if observation.to_call else 'check'\n"
)


@pytest.fixture()
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The author's working folder, with a copy of the Python example bot folder in it."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(EXAMPLES / "python_class", tmp_path / "tight")
    return tmp_path


@pytest.mark.parametrize("spec", ["tight/", "tight", "tight/bot.toml"])
def test_check_agent_and_match_take_a_bot_folder(
    folder: Path, spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check-agent", spec, "--states", "10", "--deals", "2"]) == 0
    assert "result: PASS" in capsys.readouterr().out
    assert main(["match", spec, "random", "--deals", "4", "--seed", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["agents"][0]["name"] == "tight"
    assert sum(result["agents"][0]["faults"].values()) == 0


def test_a_command_bot_folder_runs_its_command_in_the_folder(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(EXAMPLES / "node", folder / "nodebot")
    assert main(["match", "nodebot/", "random", "--deals", "4", "--seed", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert sum(result["agents"][0]["faults"].values()) == 0


@pytest.mark.parametrize(
    ("spec", "refusal"),
    [
        ("tigth/", "no such folder"),
        (
            "tight/bott.py:TightCaller",
            "no such file tight/bott.py; did you mean tight/bot.py:TightCaller?",
        ),
        (
            "tight/bot.py:TightCalller",
            "has no class TightCalller; did you mean tight/bot.py:TightCaller?",
        ),
        ("empty/", "a folder without a bot.toml, so it names no bot"),
        ("typo/", "entry file 'bott.py' is not in the bot's folder; did you mean 'bot.py'?"),
        ("noclass/", "has no class Nothing; did you mean"),
        ("unbuilt/", "its bot.toml runs './bot', which is not in"),
    ],
)
@pytest.mark.parametrize("command", ["check-agent", "match"])
def test_a_spec_that_names_nothing_is_refused_with_what_is_there(
    folder: Path, spec: str, refusal: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "empty").mkdir()
    shutil.copytree(folder / "tight", folder / "typo")
    (folder / "typo" / "bot.toml").write_text('name = "t"\nversion = "1"\nentry = "bott.py:X"\n')
    shutil.copytree(folder / "tight", folder / "noclass")
    (folder / "noclass" / "bot.toml").write_text(
        'name = "n"\nversion = "1"\nentry = "bot.py:Nothing"\n'
    )
    (folder / "unbuilt").mkdir()
    (folder / "unbuilt" / "bot.c").write_text("int main(void) { return 0; }\n")
    (folder / "unbuilt" / "bot.toml").write_text('name = "u"\nversion = "1"\ncommand = "./bot"\n')
    arguments = [spec, "random", "--deals", "2"] if command == "match" else [spec]
    assert main([command, *arguments]) == 2
    err = capsys.readouterr().err
    assert refusal in err, err
    if spec == "tigth/":
        assert "did you mean tight/?" in err
    if spec == "unbuilt/":
        assert "build it first" in err


def test_a_bot_that_imports_its_neighbour_without_a_bot_toml_is_told_what_to_do(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "lone").mkdir()
    (folder / "lone" / "helpers.py").write_text("X = 1\n")
    (folder / "lone" / "bot.py").write_text("from helpers import X\n\n" + CALLER)
    assert main(["match", "lone/bot.py:Caller", "random", "--deals", "2", "--quiet"]) == 3
    err = capsys.readouterr().err
    assert "No module named 'helpers'" in err and "a bot.toml beside it makes" in err
    assert main(["check-agent", "lone/bot.py:Caller", "--states", "4"]) == 3
    assert "a bot.toml beside it makes" in capsys.readouterr().out
    # With a bot.toml the folder is the bot's, its neighbour included.
    (folder / "lone" / "bot.toml").write_text(
        'name = "lone"\nversion = "1"\nentry = "bot.py:Caller"\n'
    )
    assert main(["check-agent", "lone/", "--states", "10", "--deals", "2"]) == 0


def test_a_package_of_this_machine_is_named_as_one_the_sandbox_does_not_show(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "sci").mkdir()
    (folder / "sci" / "bot.py").write_text("import scipy\n\n" + CALLER)
    (folder / "sci" / "bot.toml").write_text(
        'name = "sci"\nversion = "1"\nentry = "bot.py:Caller"\n'
    )
    assert main(["match", "sci/", "random", "--deals", "2", "--quiet"]) == 3
    err = capsys.readouterr().err
    assert "scipy is installed here, but a sandboxed Python bot sees only" in err


def test_a_typo_in_a_config_is_refused_and_with_allow_absent_sits_out(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = folder / "event.toml"
    config.write_text(
        '[event]\nname = "typo"\nformat = "quickplay"\nseed = 1\n\n'
        '[[entrants]]\nname = "typo"\nagent = "tight/bott.py:TightCaller"\n\n'
        '[field]\ncount = 3\nfrom = ["random"]\n'
    )
    arguments = ["run", str(config), "--executor", "serial", "--quiet"]
    assert main([*arguments, "--run-dir", "refused"]) == 2
    err = capsys.readouterr().err
    assert "did you mean" in err and f"dp-arena run {config} --allow-absent" in err
    assert not (folder / "refused").exists()
    assert main([*arguments, "--run-dir", "played", "--allow-absent"]) == 0
    assert "typo (tight/bott.py:TightCaller): no such file bott.py" in capsys.readouterr().err
    results = json.loads((folder / "played" / "results.json").read_text())
    [typo] = [entrant for entrant in results["entrants"] if entrant["player"] == "typo"]
    assert typo["status"] == "absent" and typo["code"]["sha256"] is None
    assert "no such file" in typo["absent_reason"]
    assert main(["verify", "played"]) == 0


def test_a_bot_that_does_not_load_is_status_3_in_plan_and_run(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "broken").mkdir()
    (folder / "broken" / "bot.py").write_text("import no_such_module_here\n\n" + CALLER)
    config = folder / "event.toml"
    config.write_text(
        '[event]\nname = "broken"\nformat = "quickplay"\nseed = 1\n\n'
        '[[entrants]]\nagent = "broken/bot.py:Caller"\n\n[field]\ncount = 3\nfrom = ["random"]\n'
    )
    assert main(["plan", str(config)]) == 3
    assert main(["run", str(config), "--executor", "serial", "--quiet"]) == 3
    assert "no_such_module_here" in capsys.readouterr().err


def test_submit_names_a_folder_that_is_not_there(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["submit", "tigth/", "--registry", str(folder / "registry")]) == 2
    assert "no such folder or archive tigth; did you mean tight?" in capsys.readouterr().err


def test_a_bot_ships_a_pure_python_package_beside_its_file(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # treys is installed here but not shown in the sandbox: a copy in the bot's folder is.
    import treys

    shutil.copytree(Path(treys.__file__).parent, folder / "tight" / "treys")
    (folder / "tight" / "bot.py").write_text(
        "import treys\n\nassert treys.Evaluator\n\n" + CALLER.replace("Caller", "TightCaller")
    )
    assert main(["check-agent", "tight/", "--states", "10", "--deals", "2"]) == 0
    assert "result: PASS" in capsys.readouterr().out


def test_a_program_ships_its_own_library_found_through_its_run_path(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc) here")
    bot = folder / "cbot"
    shutil.copytree(Path(__file__).resolve().parent / "origin_bot", bot)
    (bot / "lib").mkdir()
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-o", "lib/libanswer.so", "answer.c"], cwd=bot, check=True
    )
    subprocess.run(
        ["cc", "-o", "bot", "bot.c", "-Llib", "-lanswer", "-Wl,-rpath,$ORIGIN/lib"],
        cwd=bot,
        check=True,
    )
    (bot / "bot.toml").write_text('name = "cbot"\nversion = "1"\ncommand = "./bot"\n')
    assert main(["check-agent", "cbot/", "--states", "10", "--deals", "2"]) == 0
    assert "result: PASS" in capsys.readouterr().out
