"""``dp-arena server verify-match ID --replay``: a ladder match, played by the ladder from
two checked submissions and read back as the API publishes it, is played again by its
bots from the server's registry and repeats every decision; the same match forged the
careful way (a table's actions rewritten, nets recomputed, scores to match) passes the
plain check but not the replay, which names the bots; a bot whose registry copy was
changed is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from dp_arena.cli import main
from dp_arena.engine import Betting
from dp_arena.errors import RunError
from dp_arena.keys import EventKey
from dp_arena.match import MatchConfig, match_clairvoyance
from dp_arena.registry import Registry
from dp_arena.results import TableSessionResult, to_json
from dp_arena.server import crud, views
from dp_arena.server.checks import check_submission
from dp_arena.server.db import Database
from dp_arena.server.ladder import Ladder
from dp_arena.server.matches import match_units, verify_match
from dp_arena.server.settings import ServerSettings
from tests.forgery import forged_session

from .helpers import CALLER, bot_folder, zip_folder

STEADY = Path(__file__).resolve().parents[1] / "runner" / "bots" / "steady" / "bot.py"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> tuple[ServerSettings, int]:
    """A server's database and files with one finished ladder match: its settings and the
    match's id."""
    root = tmp_path_factory.mktemp("ladder")
    url = f"sqlite:///{root / 'arena.db'}"
    settings = ServerSettings(db_url=url, data_dir=root / "data", ladder_deals=6)
    settings.data.create()
    database = Database(url, registry=settings.data.registry)
    database.migrate()
    with database.session() as session:
        author, _ = crud.add_author(session, "alice")
    sources = {"caller": (CALLER, "Caller"), "steady": (STEADY.read_text(), "Steady")}
    for name, (source, cls) in sources.items():
        folder = bot_folder(root / "bots", name, source, cls)
        with database.session() as session:
            author = crud.author_named(session, "alice")
            assert author is not None
            submission = crud.add_submission(session, author, "0" * 64, 1).id
        settings.data.upload(submission, ".zip").write_bytes(zip_folder(folder))
        assert check_submission(database, settings.data, submission, states=5) == crud.ACCEPTED
    ladder = Ladder(database, settings)
    match_id = ladder.next_match()
    assert match_id is not None
    ladder.play(match_id, None)
    return settings, match_id


def _published(settings: ServerSettings, match_id: int) -> dict[str, Any]:
    database = Database(settings.db_url, registry=settings.data.registry)
    with database.session() as session:
        match = crud.match(session, match_id)
        assert match is not None and match.status == crud.FINISHED
        data: dict[str, Any] = views.match_data(session, match)
    return json.loads(json.dumps(data))  # as the API serves it


def _database_arguments(settings: ServerSettings) -> list[str]:
    return ["--db", settings.db_url, "--data", str(settings.data.root)]


def test_an_honest_match_replays(
    server: tuple[ServerSettings, int], capsys: pytest.CaptureFixture[str]
) -> None:
    settings, match_id = server
    data = _published(settings, match_id)
    assert all(bot["sha256"] for bot in data["bots"])
    assert verify_match(data) == []
    assert verify_match(data, replay_from=settings.data.registry) == []
    arguments = ["server", "verify-match", str(match_id), "--replay", "--quiet"]
    assert main([*arguments, *_database_arguments(settings)]) == 0
    assert "every decision was answered as recorded" in capsys.readouterr().out


def _forge(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The match with its first table's actions rewritten for seat 0, its nets
    recomputed by the engine and the bots' net chips and clairvoyance tests made to
    match: the refs of the players of that table."""
    config = MatchConfig(
        specs=("-", "-"),
        deals=data["deals"],
        betting=Betting(data["betting"]),
        small_blind=data["small_blind"],
        big_blind=data["big_blind"],
        cap=data["cap"],
        key=EventKey.from_hex(data["key"]),
    )
    refs = [bot["ref"] for bot in data["bots"]]
    unit = match_units(config, refs)[0]
    forged = dict(data)
    table = forged_session(unit, TableSessionResult.from_json(data["tables"][0]), 0)
    forged["tables"] = [to_json(table), *data["tables"][1:]]
    nets = [0, 0]
    for index, seating in enumerate(((0, 1), (1, 0))):
        result = TableSessionResult.from_json(forged["tables"][index])
        for seat, agent in enumerate(seating):
            nets[agent] += result.session_nets[seat]
    tested = match_clairvoyance(
        config, tuple(TableSessionResult.from_json(table) for table in forged["tables"])
    )
    forged["bots"] = [
        {**bot, "net_chips": net, "clairvoyance": tested[bot["ref"]].to_json()}
        for bot, net in zip(data["bots"], nets, strict=True)
    ]
    return forged, list(unit.players)


def test_a_forged_match_passes_the_check_but_not_the_replay(
    server: tuple[ServerSettings, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings, match_id = server
    data = _published(settings, match_id)
    forged, players = _forge(data)
    assert forged["bots"] != data["bots"]  # the scores moved
    assert verify_match(forged) == []
    problems = verify_match(forged, replay_from=settings.data.registry)
    named = [problem for problem in problems if " differs: " in problem]
    assert named and all(problem.split(" differs")[0] in players for problem in named)
    assert all(" differs: " in problem and "table 1, deal " in problem for problem in named), named
    assert any("the bots' own play gives" in problem for problem in problems)
    saved = tmp_path / "forged.json"
    saved.write_text(json.dumps(forged))
    arguments = ["server", "verify-match", str(saved), "--replay", "--quiet"]
    assert main([*arguments, "--registry", str(settings.data.registry)]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_a_changed_registry_copy_is_refused(
    server: tuple[ServerSettings, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings, match_id = server
    data = _published(settings, match_id)
    copy = tmp_path / "registry"
    shutil.copytree(settings.data.registry, copy)
    stored = Registry(copy).resolve(data["bots"][1]["ref"])
    (stored.folder / "bot.py").write_text((stored.folder / "bot.py").read_text() + "\n# changed\n")
    with pytest.raises(RunError, match=data["bots"][1]["ref"]):
        verify_match(data, replay_from=copy)
    arguments = ["server", "verify-match", str(match_id), "--replay", "--registry", str(copy)]
    assert main([*arguments, *_database_arguments(settings)]) == 2
    assert "cannot be replayed" in capsys.readouterr().err
