"""``dp-arena rollouts RUN_DIR``: a finished event's draws valued by rollouts of fresh
copies of its bots, kept beside the store in ``rollouts.sqlite``: the values are those
of :func:`dp_arena.rollouts.table_values` run directly, a command stopped mid-way goes on
to the same sidecar, the leaderboard's adjusted score uses and names them, the store and
``verify`` of the run are untouched, ``verify`` checks the sidecar, bad input is refused
naming the file, and a sandboxed copy learns nothing from the copies before it."""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from dp_arena.agents import AbsentSeat, InProcessSeat, Seat, load_agent
from dp_arena.cli import main
from dp_arena.engine import Betting, TableRules, deck_for
from dp_arena.errors import RunError
from dp_arena.keys import EventKey
from dp_arena.leaderboard.model import LeaderboardOptions, build_leaderboard, load_runs
from dp_arena.ratings.run_blocks import store_results
from dp_arena.ratings.runs import load_run
from dp_arena.results import TableSessionResult
from dp_arena.rollouts import RolloutPlace, table_values
from dp_arena.rundir.rollouts import read_values
from dp_arena.runner import ExecutorOptions, start_run
from dp_arena.runner.rollouts import RolloutProgress, event_rollouts
from dp_arena.runner.verify import verify_run
from dp_arena.tournament.loading import load_config

SERIAL = ExecutorOptions("serial")
ROLLOUTS = 2
SPY = Path(__file__).resolve().parent / "bots" / "rollout_spy"


def _event(
    folder: Path, *, seed: str = "", entrants: str = "", count: int = 6, name: str = "run"
) -> Path:
    """A short tournament of built-ins, two of which answer with mixes (random), dealt
    from a secret key unless ``seed`` is given."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "event.toml"
    config.write_text(
        f'[event]\nname = "rolled"\nformat = "short"\n{seed}\n\n{entrants}'
        f'[field]\ncount = {count}\nfrom = ["random", "calling-station", "tag"]\n',
        encoding="utf-8",
    )
    run_dir = folder / name
    start_run(load_config(config), run_dir, SERIAL, quiet=True)
    return run_dir


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _event(tmp_path_factory.mktemp("rollouts"))


@pytest.fixture(scope="module")
def valued(finished: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the finished run with its sidecar made in one go."""
    run_dir = tmp_path_factory.mktemp("valued") / "run"
    shutil.copytree(finished, run_dir)
    event_rollouts(run_dir, rollouts=ROLLOUTS)
    return run_dir


@pytest.fixture()
def copy(valued: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(valued, tmp_path / "run"))


def _sidecar_rows(run_dir: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(run_dir / "rollouts.sqlite") as connection:
        return connection.execute(
            'SELECT unit_id, session, section, table_index, deals, data FROM "values"'
            " ORDER BY unit_id"
        ).fetchall()


def _direct(run_dir: Path) -> dict[tuple[int, int, int], TableSessionResult]:
    """Every stored table-session valued by :func:`table_values` itself, with in-process
    copies of each seat's built-in (absent players absent) and the revealed key."""
    results = json.loads((run_dir / "results.json").read_text())
    specs = {entrant["player"]: entrant["spec"] for entrant in results["entrants"]}
    seed = EventKey.from_hex(results["event"]["key"]).seed
    plan = {session["session"]: session for session in results["plan"]["sessions"]}
    stored = store_results(run_dir)
    assert stored is not None
    valued = {}
    for (session, section, table), result in stored.items():
        rules_of = plan[session]
        rules = TableRules(
            len(result.players),
            rules_of["small_blind"],
            rules_of["big_blind"],
            Betting(rules_of["betting"]),
            rules_of["cap"],
        )
        absent = {seat for record in result.deals for seat in record.absent}
        seats: list[Seat] = [
            AbsentSeat(player)
            if seat in absent or player not in specs
            else InProcessSeat(load_agent(specs[player]), player)
            for seat, player in enumerate(result.players)
        ]
        valued[session, section, table] = table_values(
            rules,
            result,
            functools.partial(deck_for, seed, section, session),
            seats,
            rollouts=ROLLOUTS,
            place=RolloutPlace(seed, section, session, table),
        )
    return valued


def test_the_values_kept_are_those_of_table_values_run_directly(valued: Path) -> None:
    kept = store_results(valued, read_values(valued))
    assert kept == _direct(valued)
    assert sum(len(record.values) for result in kept.values() for record in result.deals) > 20


def test_a_command_stopped_mid_way_goes_on_to_the_same_sidecar(
    finished: Path, valued: Path, tmp_path: Path
) -> None:
    run_dir = Path(shutil.copytree(finished, tmp_path / "run"))

    def stop(progress: RolloutProgress) -> None:
        if progress.done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        event_rollouts(run_dir, rollouts=ROLLOUTS, on_progress=stop)
    assert len(_sidecar_rows(run_dir)) == 2
    assert read_values(run_dir) is None  # unfinished: not used
    assert load_run(run_dir).rollouts is None
    again = event_rollouts(run_dir, rollouts=ROLLOUTS)
    assert again.kept == 2 and again.done == again.total > 2
    assert _sidecar_rows(run_dir) == _sidecar_rows(valued)


# Kill the command inside the transaction of its third table-session, before its COMMIT.
_KILLED = """
import os, signal, sys
from pathlib import Path
from dp_arena.rundir import database, rollouts
from dp_arena.runner.rollouts import event_rollouts
puts = {"count": 0}
original_put, original_exit = rollouts.RolloutStore.put, database._Transaction.__exit__
def put(self, *args):
    puts["count"] += 1
    return original_put(self, *args)
def exit_transaction(self, exc_type, *rest):
    if puts["count"] == 3 and exc_type is None:
        os.kill(os.getpid(), signal.SIGKILL)
    return original_exit(self, exc_type, *rest)
rollouts.RolloutStore.put = put
database._Transaction.__exit__ = exit_transaction
event_rollouts(Path(sys.argv[1]), rollouts=int(sys.argv[2]))
"""


def test_a_command_killed_in_a_commit_goes_on_to_the_same_sidecar(
    finished: Path, valued: Path, tmp_path: Path
) -> None:
    run_dir = Path(shutil.copytree(finished, tmp_path / "run"))
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED, str(run_dir), str(ROLLOUTS)],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()[-2000:]
    assert len(_sidecar_rows(run_dir)) == 2
    again = event_rollouts(run_dir, rollouts=ROLLOUTS)
    assert again.kept == 2
    assert _sidecar_rows(run_dir) == _sidecar_rows(valued)


def test_the_store_and_the_results_are_untouched_and_verify_checks_the_sidecar(
    finished: Path, valued: Path
) -> None:
    for name in ("store.sqlite", "results.json"):
        assert (valued / name).read_bytes() == (finished / name).read_bytes()
    checks = {check.name: check for check in verify_run(valued).checks}
    assert all(check.passed for check in checks.values())
    assert "rollouts" in checks and "rollouts" not in {c.name for c in verify_run(finished).checks}


def _leaderboard(*run_dirs: Path) -> dict[str, Any]:
    return build_leaderboard(load_runs(list(run_dirs)), LeaderboardOptions())


def test_the_leaderboard_uses_the_values_and_names_them(finished: Path, valued: Path) -> None:
    plain, rolled = _leaderboard(finished), _leaderboard(valued)
    assert plain["settings"]["adjusted"]["label"] == "Luck-adjusted"
    assert "rollouts" not in plain["settings"]["adjusted"]
    assert rolled["settings"]["adjusted"]["label"] == f"Luck-adjusted (rollouts {ROLLOUTS})"
    assert rolled["settings"]["adjusted"]["rollouts"] == {"run": ROLLOUTS}
    assert "rollouts" in rolled["settings"]["adjusted"]["about"]

    def adjusted(board: dict[str, Any]) -> dict[str, Any]:
        return {row["name"]: row["adjusted"]["mbb_per_deal"] for row in board["ranking"]}

    def raw(board: dict[str, Any]) -> dict[str, Any]:
        return {row["name"]: row["mbb_per_deal"] for row in board["ranking"]}

    assert raw(plain) == raw(rolled) and adjusted(plain) != adjusted(rolled)


def test_a_leaderboard_of_runs_of_which_some_have_rollouts_says_so(
    valued: Path, tmp_path: Path
) -> None:
    other = _event(tmp_path / "other", seed="seed = 3", name="other")
    board = _leaderboard(valued, other)
    assert board["settings"]["adjusted"]["label"] == "Luck-adjusted (rollouts 2 in 1 of 2 events)"
    assert board["settings"]["adjusted"]["rollouts"] == {"run": 2, "other": None}
    assert "fixed blend" in board["settings"]["adjusted"]["about"]


def test_another_k_is_refused_unless_forced(copy: Path) -> None:
    with pytest.raises(RunError, match=r"rollouts\.sqlite holds values made with --rollouts 2"):
        event_rollouts(copy, rollouts=3)
    done = event_rollouts(copy, rollouts=1, force=True)
    assert done.kept == 0 and done.done == done.total
    assert load_run(copy).rollouts == 1


def test_the_command_line(copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rollouts", str(copy), "--rollouts", str(ROLLOUTS), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "valued by 2 rollouts per action" in out and "valued before" in out
    assert main(["rollouts", str(copy), "--rollouts", "5", "--quiet"]) == 2
    assert "--force" in capsys.readouterr().err


def test_bad_input_is_refused_naming_the_file(finished: Path, valued: Path, tmp_path: Path) -> None:
    with pytest.raises(RunError, match="is not a directory"):
        event_rollouts(tmp_path / "nothing", rollouts=2)
    unfinished = Path(shutil.copytree(finished, tmp_path / "unfinished"))
    (unfinished / "results.json").unlink()
    with pytest.raises(RunError, match=r"has no results\.json: only a finished run"):
        event_rollouts(unfinished, rollouts=2)
    with pytest.raises(RunError, match="at least 1"):
        event_rollouts(finished, rollouts=0)
    damaged = Path(shutil.copytree(valued, tmp_path / "damaged"))
    (damaged / "rollouts.sqlite").write_bytes(b"not a database" * 100)
    with pytest.raises(RunError, match=r"rollouts\.sqlite"):
        load_run(damaged)
    assert not {check.name: check.passed for check in verify_run(damaged).checks}["rollouts"]


def test_a_sidecar_of_another_run_is_refused(valued: Path, tmp_path: Path) -> None:
    other = _event(tmp_path / "other", seed="seed = 4")
    shutil.copy(valued / "rollouts.sqlite", other / "rollouts.sqlite")
    with pytest.raises(RunError, match=r"rollouts\.sqlite: its values belong to another"):
        load_run(other)
    failed = [check for check in verify_run(other).checks if not check.passed]
    assert [check.name for check in failed] == ["rollouts"]


def _edit_first_values(run_dir: Path, change: Any) -> None:
    with sqlite3.connect(run_dir / "rollouts.sqlite") as connection:
        rows = connection.execute(
            'SELECT unit_id, data FROM "values" ORDER BY session, section, table_index'
        ).fetchall()
        for unit, blob in rows:
            data = json.loads(zlib.decompress(blob))
            if any(deal for deal in data):
                change(next(deal for deal in data if deal))
                connection.execute(
                    'UPDATE "values" SET data = ? WHERE unit_id = ?',
                    (zlib.compress(json.dumps(data).encode()), unit),
                )
                return


def test_verify_finds_values_of_the_wrong_shape(copy: Path) -> None:
    _edit_first_values(copy, lambda deal: deal[0][1][0].pop())
    rollouts = next(check for check in verify_run(copy).checks if check.name == "rollouts")
    assert not rollouts.passed and "values for" in rollouts.problems[0]


def test_verify_replay_plays_the_rollouts_again(copy: Path) -> None:
    def changed(deal: list[Any]) -> None:
        row = deal[0][1][0]
        row[0], row[1] = row[1], row[0]

    checks = {check.name: check for check in verify_run(copy, replay="all").checks}
    assert checks["rollouts replayed"].passed
    _edit_first_values(copy, changed)
    checks = {check.name: check for check in verify_run(copy, replay="all").checks}
    assert checks["rollouts"].passed and not checks["rollouts replayed"].passed


def _sandboxed() -> str | None:
    """Why the sandbox cannot confine a bot here (``None`` when it can)."""
    from dp_arena.sandbox import isolation

    found = isolation()
    if found.mode in ("bubblewrap", "unshare"):
        return None
    return f"no namespace sandbox on this machine ({found.mode}): {found.warning}"


def test_a_sandboxed_copy_learns_nothing_from_the_copies_before_it(tmp_path: Path) -> None:
    """The spy leaves a marker in /tmp, its home, its working folder and the run
    directory, and raises when it finds another copy's: no real copy faults, no marker is
    left on the host, and the values its sandboxed rollout copies give are those its
    twin that never looks gives in this process."""
    reason = _sandboxed()
    if reason is not None:
        pytest.skip(reason)
    bot = Path(shutil.copytree(SPY, tmp_path / "spy"))
    run_dir = tmp_path / "event" / "run"
    (bot / "guess.txt").write_text(str(run_dir))
    run_dir = _event(
        tmp_path / "event",
        entrants=f'[[entrants]]\nname = "spy"\nagent = "{bot / "bot.py"}:Spy"\n\n',
        count=5,
    )
    results = json.loads((run_dir / "results.json").read_text())
    assert [fault for fault in results["faults"] if fault["player"] == "spy"] == []
    event_rollouts(run_dir, rollouts=ROLLOUTS)
    for place in (Path("/tmp"), Path.home(), Path.cwd(), run_dir):
        assert not (place / "dp-arena-rollout-spy").exists()
    kept = store_results(run_dir, read_values(run_dir))
    assert kept is not None
    twin = f"{bot / 'bot.py'}:Alone"
    for entrant in results["entrants"]:
        if entrant["player"] == "spy":
            entrant["spec"] = twin
    (tmp_path / "twin").mkdir()
    shutil.copytree(run_dir, tmp_path / "twin" / "run")
    (tmp_path / "twin" / "run" / "results.json").write_text(json.dumps(results))
    assert kept == _direct(tmp_path / "twin" / "run")
    spied = [
        record
        for result in kept.values()
        if "spy" in result.players
        for record in result.deals
        if record.values
    ]
    assert len(spied) > 5


def test_the_sidecar_digest_names_its_results(valued: Path) -> None:
    with sqlite3.connect(valued / "rollouts.sqlite") as connection:
        meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
    assert (
        meta["results_sha256"] == hashlib.sha256((valued / "results.json").read_bytes()).hexdigest()
    )
    assert meta["rollouts"] == "2" and meta["complete"] == "yes" and meta["code_version"]


def test_an_unfinished_sidecar_of_other_code_is_refused_a_finished_one_kept(
    finished: Path, copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = Path(shutil.copytree(finished, tmp_path / "unfinished"))

    def stop(progress: RolloutProgress) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        event_rollouts(run_dir, rollouts=ROLLOUTS, on_progress=stop)
    monkeypatch.setattr("dp_arena.runner.rollouts.code_version", lambda: "2" * 64)
    with pytest.raises(RunError, match="another dp-arena"):
        event_rollouts(run_dir, rollouts=ROLLOUTS)
    done = event_rollouts(copy, rollouts=ROLLOUTS)
    assert done.kept == done.total and done.rollouts == 0
