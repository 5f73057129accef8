"""Tournaments over the ladder's bots: an organiser's event config played with the
accepted bots as its entrants (each bot's current version, pinned), through the runner
as ``dp-arena run`` plays it, then published as ``dp-arena leaderboard publish``
publishes it, and served by the server under ``/tournaments/ID/``.

The config's own ``[[entrants]]`` give way to the server's bots; the built-in field it
draws (``[field]``) stays. The deck key is made here, before anything is played: a new
secret key unless the config names a public seed. Its commitment is stored with the
tournament and printed before the first deal; the published page reveals the key once
the event is over.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dp_arena.errors import ConfigError, DPArenaError
from dp_arena.server import crud
from dp_arena.server.db import Database
from dp_arena.server.models import now
from dp_arena.server.settings import ServerSettings
from dp_arena.text import printable
from dp_arena.tournament.config import EventConfig

__all__ = ["run_tournament", "server_config"]


def server_config(
    data: Mapping[str, Any], refs: Sequence[str], *, source: Path, registry: Path
) -> EventConfig:
    """The config ``data`` (as read from TOML) with the registry bots ``refs``
    (``name@version``) as its entrants, each sandboxed and named by its bot's name, and
    validated as any config is. :class:`ConfigError` when the format cannot be played
    by that many entrants says so first, in the format's own words."""
    from dp_arena.tournament.config import parse_config
    from dp_arena.tournament.formats import FORMATS, get_format

    if not refs:
        raise ConfigError("a tournament needs at least one accepted bot on the server")
    event = data.get("event")
    format_name = event.get("format") if isinstance(event, Mapping) else None
    field = data.get("field")
    count = field.get("count", 0) if isinstance(field, Mapping) else 0
    if isinstance(format_name, str) and format_name in FORMATS and type(count) is int:
        problem = get_format(format_name).check_players(len(refs) + count)
        if problem is not None:
            bots = f"{len(refs)} accepted bot{'s' * (len(refs) != 1)}"
            drawn = f" and its [field] {count} built-in bots" if count else ""
            raise ConfigError(
                f"{problem}: the server has {bots}{drawn}; draw more built-in bots with the"
                " config's [field] (count and from)",
                field="entrants",
            )
    entrants = [{"name": ref.split("@")[0], "agent": f"registry:{ref}"} for ref in sorted(refs)]
    return parse_config({**data, "entrants": entrants}, source=source, registry=registry)


def run_tournament(
    database: Database,
    settings: ServerSettings,
    config_path: Path,
    *,
    executor: str,
    workers: int | None = None,
    ray_address: str | None = None,
) -> int:
    """Play ``config_path`` over the accepted bots, publish it, record it; an exit status."""
    from dp_arena.leaderboard import publish
    from dp_arena.runner.launch import ExecutorOptions, event_key_for, start_run

    try:
        text = config_path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{config_path}: cannot read the config: {error}") from None
    options = ExecutorOptions(executor, workers, ray_address)
    with database.session() as session:
        refs = [str(entry.ref) for entry in crud.current_entries(session)]
    config = server_config(data, refs, source=config_path, registry=settings.data.registry)
    key = event_key_for(config)
    with database.session() as session:
        row = crud.add_tournament(session, config.name, text, "", commitment=key.commitment)
        tournament_id = row.id
    # Printed before the first deal: the organiser may publish it, and once the page
    # reveals the key anyone can check that it was the key committed to.
    print(f"tournament {tournament_id} ({config.name}): {key.describe()}", flush=True)
    run_dir = settings.data.tournaments / f"{tournament_id}" / "run"
    out = settings.data.tournaments / f"{tournament_id}" / "published"
    try:
        start_run(config, run_dir, options, quiet=True, key=key)
        publish([run_dir], out)
    except (DPArenaError, ValueError) as error:
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
