"""A server tournament starts as ``dp-arena run`` starts an event, through the same
service: every bot is loaded once before anything is recorded, and a bot that cannot load
refuses the start in the same words, with nothing written (no tournament, no run
directory, no key)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dp_arena.commands import NOT_LOADED
from dp_arena.errors import ConfigError
from dp_arena.registry import Registry, read_manifest
from dp_arena.runner.executors import ExecutorOptions
from dp_arena.server.db import Database
from dp_arena.server.models import Tournament
from dp_arena.server.settings import ServerSettings
from dp_arena.server.tournaments import run_tournament

from .helpers import CALLER, accepted, bot_folder, cli

BROKEN = """raise RuntimeError("this bot breaks as it is imported")


class Broken:
    def act(self, observation):
        raise AssertionError("never seated")
"""

CUP = """[event]
name = "Preflight cup"
format = "regular"

[field]
count = 2
from = ["random"]
"""


def _accept(database: Database, registry: Registry, folder: Path) -> str:
    """``folder`` stored in the registry and accepted on the server: its ``name@version``."""
    stored, _ = registry.add(folder, read_manifest(folder))
    accepted(database, f"author-of-{folder.name}", stored.name, version=stored.version)
    return f"{stored.name}@{stored.version}"


def test_a_tournament_with_a_bot_that_cannot_load_is_refused_as_the_command_refuses_it(
    tmp_path: Path,
) -> None:
    settings = ServerSettings(
        db_url=f"sqlite:///{tmp_path / 'arena.db'}", data_dir=tmp_path / "data", ladder=False
    )
    settings.data.create()
    database = Database(settings.db_url)
    database.migrate()
    registry = Registry(settings.data.registry)
    bots = tmp_path / "bots"
    refs = [
        _accept(database, registry, bot_folder(bots, "calla", CALLER, "Caller")),
        _accept(database, registry, bot_folder(bots, "broken", BROKEN, "Broken")),
    ]
    config = tmp_path / "cup.toml"
    config.write_text(CUP, encoding="utf-8")

    with pytest.raises(ConfigError) as refused:
        run_tournament(database, settings, config, ExecutorOptions("serial"))
    error = refused.value
    assert error.absent_players == ("broken",)
    assert str(error).startswith("1 of 4 entrants cannot play:")
    assert "broken (registry:broken@1): could not load" in str(error)
    assert "calla" not in str(error)
    # Nothing recorded, nothing written: no tournament, no run directory, no key.
    with database.session() as session:
        assert session.query(Tournament).count() == 0
    assert list(settings.data.tournaments.iterdir()) == []

    # `dp-arena run` over the same entrants refuses with the same words.
    entrants = "".join(
        f'\n[[entrants]]\nname = "{ref.split("@")[0]}"\nagent = "registry:{ref}"\n' for ref in refs
    )
    (tmp_path / "cli.toml").write_text(CUP + entrants, encoding="utf-8")
    run_dir = tmp_path / "cli-run"
    done = cli(
        "run",
        str(tmp_path / "cli.toml"),
        "--registry",
        str(settings.data.registry),
        "--run-dir",
        str(run_dir),
        "--executor",
        "serial",
        "--quiet",
    )
    assert done.returncode == NOT_LOADED, done.stdout + done.stderr
    assert f"dp-arena run: {error}" in done.stderr
    assert not run_dir.exists()
