"""Before a card is dealt every entrant is loaded once: a bot that cannot play stops the
event with its entrant's name, the reason and a suggestion, and nothing is written;
``--allow-absent`` plays anyway and says so. Registries are named by the config or the
command line, and a spec that names nothing is refused with a suggestion."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from dp_arena.agents import SpecKind, parse_spec
from dp_arena.cli import main
from dp_arena.errors import AgentError, ConfigError
from dp_arena.results import FaultKind
from dp_arena.tournament.loading import load_config
from dp_arena.tournament.preflight import preflight
from tests import run_files

GOOD = """from dp_arena.engine import Action


class Tighty:
    def act(self, observation):
        return Action.check() if not observation.to_call else Action.fold()
"""


def _event(folder: Path, entrants: str, extra: str = "", *, seed: int | None = None) -> Path:
    bots = folder / "bots"
    bots.mkdir(parents=True, exist_ok=True)
    (bots / "tight.py").write_text(GOOD)
    (bots / "broken.py").write_text(
        "import no_such_module_here\n\nclass Bot:\n    def act(self, o): ...\n"
    )
    (bots / "slow.py").write_text(
        "import time\ntime.sleep(60)\n\nclass Bot:\n    def act(self, o): ...\n"
    )
    path = folder / "event.toml"
    path.write_text(
        '[event]\nname = "preflight"\nformat = "short"\n'
        + (f"seed = {seed}\n" if seed is not None else "")
        + "\n"
        f'{entrants}\n[field]\ncount = 8\nfrom = ["random"]\n{extra}'
    )
    return path


def _entrant(name: str, agent: str) -> str:
    return f'[[entrants]]\nname = "{name}"\nagent = "{agent}"\n'


def test_a_missing_class_is_refused_with_the_entrant_and_a_suggestion(tmp_path: Path) -> None:
    config = _event(tmp_path, _entrant("alice", "bots/tight.py:Tight"))
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    text = str(caught.value)
    assert "(alice)" in text and "no class Tight" in text
    assert "did you mean bots/tight.py:Tighty?" in text


def test_a_bot_that_cannot_load_stops_the_run_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _event(
        tmp_path, _entrant("alice", "bots/tight.py:Tighty") + _entrant("bob", "bots/broken.py:Bot")
    )
    run_dir = tmp_path / "run"
    assert main(["run", str(config), "--run-dir", str(run_dir), "--executor", "serial"]) == 3
    err = capsys.readouterr().err
    assert "1 of 10 entrants cannot play" in err
    assert "bob (bots/broken.py:Bot)" in err and "no_such_module_here" in err
    assert "--allow-absent" in err and "alice" not in err.split("cannot play")[1]
    assert not run_dir.exists()


def test_allow_absent_plays_and_every_record_says_who_sat_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Dealt so that the random bots of bob's seat position lose more than its checks and
    # folds: by chips it would be first.
    config = _event(tmp_path, _entrant("bob", "bots/broken.py:Bot"), seed=3)
    run_dir = tmp_path / "run"
    arguments = ["run", str(config), "--run-dir", str(run_dir), "--executor", "serial", "--quiet"]
    assert main([*arguments, "--allow-absent"]) == 0
    captured = capsys.readouterr()
    assert "WARNING" in captured.err and "bob" in captured.err
    results = json.loads((run_dir / "results.json").read_text())
    (bob,) = [entrant for entrant in results["entrants"] if entrant["player"] == "bob"]
    assert bob["status"] == "absent" and "no_such_module_here" in bob["absent_reason"]
    assert all("status" not in entrant for entrant in results["entrants"] if entrant is not bob)
    summary = (run_dir / "summary.txt").read_text()
    assert "ABSENT" in summary and "bob" in summary.split("ABSENT")[-1]
    # An offline player (docs/rules.md): last of its seat position, out at the first session
    # that eliminates anyone (a short tournament's first does), never paid, whatever the
    # chips its checks and folds kept.
    (standing,) = [row for row in results["standings"] if row["player"] == "bob"]
    assert standing["eliminated_in"] == 1 and not standing.get("prize_cents")
    (section,) = [
        section
        for section in run_files.results(run_dir)["sessions"][0]["sections"]
        if any(row["player"] == "bob" for row in section["players"])
    ]
    (row,) = [row for row in section["players"] if row["player"] == "bob"]
    same_seat = [other for other in section["players"] if other["seat"] == row["seat"]]
    assert any(other["total_chips"] < row["total_chips"] for other in same_seat)
    assert row["rank"] == len(same_seat) and not row["advanced"]
    assert main(["verify", str(run_dir)]) == 0


def test_a_bot_too_slow_to_load_is_named_with_the_limit_to_raise(tmp_path: Path) -> None:
    config = load_config(
        _event(tmp_path, _entrant("sloth", "bots/slow.py:Bot"), "\n[limits]\nload_timeout = 1.0\n")
    )
    (problem,) = preflight(config)
    assert problem.players == ("sloth",) and problem.kind is FaultKind.LOAD_TIMEOUT
    assert "load_timeout" in problem.describe()


def test_a_program_that_exits_before_its_hello_is_a_load_error(tmp_path: Path) -> None:
    script = tmp_path / "quitter.py"
    script.write_text("import sys\nprint('bye', file=sys.stderr)\nsys.exit(3)\n")
    config = load_config(_event(tmp_path, _entrant("quitter", f"{sys.executable} quitter.py")))
    (problem,) = preflight(config)
    assert problem.players == ("quitter",) and problem.kind is FaultKind.LOAD_ERROR


def test_entrants_sharing_a_bot_share_one_load(tmp_path: Path) -> None:
    entrants = "".join(_entrant(f"copy-{n}", "bots/broken.py:Bot") for n in range(3))
    (problem,) = preflight(load_config(_event(tmp_path, entrants)))
    assert problem.players == ("copy-0", "copy-1", "copy-2")


def test_plan_reports_an_entrant_that_cannot_play(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _event(tmp_path, _entrant("bob", "bots/broken.py:Bot"))
    assert main(["plan", str(config)]) == 3  # as run: a bot that could not be loaded
    assert "bob (bots/broken.py:Bot)" in capsys.readouterr().err
    assert main(["plan", str(config), "--no-load"]) == 0


# -- registries ------------------------------------------------------------------------


@pytest.fixture()
def registry(tmp_path: Path) -> Path:
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / "bot.py").write_text(GOOD)
    (folder / "bot.toml").write_text('name = "carol"\nversion = "1"\nentry = "bot.py:Tighty"\n')
    root = tmp_path / "event" / "the-registry"
    assert main(["submit", str(folder), "--registry", str(root)]) == 0
    return root


def test_a_config_names_its_registry_relative_to_itself(
    registry: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # another working directory: the config's path still holds
    config = _event(
        tmp_path / "event",
        _entrant("carol", "registry:carol"),
        '\n[registry]\npath = "the-registry"\n',
    )
    loaded = load_config(config)
    (carol,) = [entrant for entrant in loaded.entrants if entrant.player == "carol"]
    assert carol.resolved == f"registry:{registry}#carol@1"  # pinned to the version found now
    assert preflight(loaded) == []


def test_an_unknown_registry_bot_is_a_config_problem_with_a_suggestion(
    registry: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _event(tmp_path / "event", _entrant("carol", "registry:caroll"))
    run_dir = tmp_path / "run"
    arguments = ["run", str(config), "--run-dir", str(run_dir), "--registry", str(registry)]
    assert main(arguments) == 2
    err = capsys.readouterr().err
    assert "(carol)" in err and "no bot named 'caroll'; did you mean 'carol'?" in err
    assert "Traceback" not in err and not run_dir.exists()


def test_a_missing_registry_is_named(tmp_path: Path) -> None:
    config = _event(
        tmp_path, _entrant("carol", "registry:carol"), '\n[registry]\npath = "nowhere"\n'
    )
    with pytest.raises(ConfigError, match=r"no bot registry at .*nowhere"):
        load_config(config)


def test_match_and_check_agent_take_a_registry(
    registry: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = ["registry:carol", "random", "--deals", "4", "--quiet", "--registry", str(registry)]
    assert main(["match", *arguments, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["agents"][0]["name"] == "carol"
    assert (
        main(["check-agent", "registry:carol", "--registry", str(registry), "--states", "20"]) == 0
    )
    capsys.readouterr()
    assert main(["match", "registry:nobody", "random", "--registry", str(registry)]) == 2
    assert "no bot named 'nobody'" in capsys.readouterr().err


# -- a .py file without a class --------------------------------------------------------


@pytest.mark.parametrize("command", ["match", "check-agent"])
def test_a_python_file_without_a_class_is_refused_with_a_suggestion(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    (tmp_path / "mybot").mkdir()
    (tmp_path / "mybot" / "bot.py").write_text(GOOD)
    monkeypatch.chdir(tmp_path)
    arguments = ["mybot/bot.py", "random"] if command == "match" else ["mybot/bot.py"]
    assert main([command, *arguments]) == 2
    err = capsys.readouterr().err
    assert "names a Python file but no class; did you mean mybot/bot.py:Tighty?" in err


def test_an_executable_python_script_is_still_a_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "bot.py"
    script.write_text("#!/usr/bin/env python3\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AgentError, match="names a Python file but no class"):
        parse_spec("./bot.py")  # not executable: a forgotten class
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    assert parse_spec("./bot.py").kind is SpecKind.COMMAND
    assert parse_spec("cmd:bot.py").kind is SpecKind.COMMAND
