"""Tournaments over the ladder's bots: an organiser's event config played with the
accepted bots as its entrants (each bot's current version, pinned), through the runner
as ``dp-arena run`` plays it, then published as ``dp-arena leaderboard publish``
publishes it, and served by the server under ``/tournaments/ID/``."""

from __future__ import annotations

import sys
import tomllib
from dataclasses import replace
from pathlib import Path

from dp_arena.errors import ConfigError, DPArenaError
from dp_arena.registry import Registry, pinned_spec
from dp_arena.server import crud
from dp_arena.server.db import Database
from dp_arena.server.models import now
from dp_arena.server.settings import ServerSettings
from dp_arena.text import printable
from dp_arena.tournament.config import Entrant

__all__ = ["run_tournament"]


def run_tournament(
    database: Database, settings: ServerSettings, config_path: Path, *, executor: str
) -> int:
    """Play ``config_path`` over the accepted bots, publish it, record it; an exit status."""
    from dp_arena.leaderboard import publish
    from dp_arena.runner.launch import ExecutorOptions, start_run
    from dp_arena.tournament.config import load_config

    try:
        text = config_path.read_text(encoding="utf-8")
        tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{config_path}: cannot read the config: {error}") from None
    registry = Registry(settings.data.registry)
    with database.session() as session:
        entries = crud.current_entries(session)
        specs = {
            str(entry.name): pinned_spec(registry.root, registry.resolve(str(entry.ref)))
            for entry in entries
        }
    if len(specs) < 2:
        raise ConfigError("a tournament needs at least two accepted bots on the server")
    config = load_config(config_path)
    # The config's own entrants give way to the server's bots; the built-in field it
    # draws (its last field_count entrants) stays.
    field = (
        config.entrants[len(config.entrants) - config.field_count :] if config.field_count else ()
    )
    config = replace(config, entrants=(*_entrants(specs), *field))
    with database.session() as session:
        row = crud.add_tournament(session, config.name, text, "")
        tournament_id = row.id
    run_dir = settings.data.tournaments / f"{tournament_id}" / "run"
    out = settings.data.tournaments / f"{tournament_id}" / "published"
    try:
        start_run(config, run_dir, ExecutorOptions(executor), quiet=True)
        publish([run_dir], out)
    except DPArenaError as error:
        with database.session() as session:
            failed = crud.tournament(session, tournament_id)
            assert failed is not None
            failed.status, failed.message, failed.finished_at = "failed", printable(error), now()
        print(printable(f"dp-arena server tournament: {error}"), file=sys.stderr)
        return 1
    with database.session() as session:
        done = crud.tournament(session, tournament_id)
        assert done is not None
        done.status, done.run_dir, done.published_dir = "published", str(run_dir), str(out)
        done.finished_at = now()
    print(f"tournament {tournament_id} ({config.name}) published: /tournaments/{tournament_id}/")
    return 0


def _entrants(specs: dict[str, str]) -> list[Entrant]:
    """The accepted bots as entrants, each pinned to its current version; sandboxed."""
    return [
        Entrant(player=name, spec=f"registry:{name}", trusted=False, resolved=spec)
        for name, spec in sorted(specs.items())
    ]
