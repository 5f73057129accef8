"""Tournaments over the ladder's bots: an organiser's event config played with the
accepted bots as its entrants (each bot's current version, pinned), through the service
``dp-arena run`` starts its runs with (:mod:`dp_arena.runner.service`: every bot loaded
once before anything is recorded, and a tournament with a bot that cannot load refused
as the command refuses it), then published as ``dp-arena leaderboard publish``
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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dp_arena.errors import ConfigError, DPArenaError
from dp_arena.names import REGISTRY_PREFIX
from dp_arena.server import crud
from dp_arena.server.db import Database
from dp_arena.server.models import now
from dp_arena.server.settings import ServerSettings
from dp_arena.text import printable
from dp_arena.tournament.config import EventConfig

if TYPE_CHECKING:
    from dp_arena.runner.launch import ExecutorOptions, RunOutcome

__all__ = ["resume_tournament", "run_tournament", "server_config"]


def server_config(
    data: Mapping[str, Any], refs: Sequence[str], *, source: Path, registry: Path
) -> EventConfig:
    """The config ``data`` (as read from TOML) with the registry bots ``refs``
    (``name@version``) as its entrants, each sandboxed and named by its bot's name, and
    validated as any config is. :class:`ConfigError` when the format cannot be played
    by that many entrants says so first, in the format's own words."""
    from dp_arena.tournament.formats import FORMATS, get_format
    from dp_arena.tournament.loading import parse_config

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
    entrants = [
        {"name": ref.split("@")[0], "agent": f"{REGISTRY_PREFIX}{ref}"} for ref in sorted(refs)
    ]
    return parse_config({**data, "entrants": entrants}, source=source, registry=registry)


def run_tournament(
    database: Database, settings: ServerSettings, config_path: Path, options: ExecutorOptions
) -> int:
    """Play ``config_path`` over the accepted bots, publish it, record it; an exit status.
    :class:`ConfigError`, with nothing recorded, when the config cannot be played by them
    or one of their bots cannot load."""
    from dp_arena.runner import service

    try:
        text = config_path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{config_path}: cannot read the config: {error}") from None
    with database.session() as session:
        house = crud.house_ids(session)  # built-ins: a config's [field] draws those
        refs = [
            str(entry.ref)
            for entry in crud.current_entries(session)
            if entry.author_id not in house
        ]
    config = server_config(data, refs, source=config_path, registry=settings.data.registry)
    # No file holds this config (the organiser's, with the server's bots for entrants):
    # a resume checks the one the run stored, and every bot's hash, but no file again.
    config = service.check_entrants(replace(config, source=None), allow_absent=False).config
    key = service.event_key_for(config)
    with database.session() as session:
        row = crud.add_tournament(session, config.name, text, "", commitment=key.commitment)
        tournament_id = row.id
        row.run_dir = str(_run_dir(settings, tournament_id))
    # Printed before the first deal: the organiser may publish it, and once the page
    # reveals the key anyone can check that it was the key committed to.
    print(f"tournament {tournament_id} ({config.name}): {key.describe()}", flush=True)
    run_dir = _run_dir(settings, tournament_id)
    return _finish(
        database,
        settings,
        tournament_id,
        lambda: service.start(config, run_dir, options, quiet=_quiet(), key=key),
    )


def _quiet() -> bool:
    """No live progress line, as ``dp-arena run``: off a terminal, or with CI set."""
    import os

    return bool(os.environ.get("CI")) or not sys.stderr.isatty()


def resume_tournament(
    database: Database, settings: ServerSettings, tournament_id: int, options: ExecutorOptions
) -> int:
    """Go on with a tournament cut short (the command killed, the machine restarted) from
    the table-sessions its run directory holds, with the key it committed to; publish
    it and record it. An exit status."""
    from dp_arena.runner import service

    with database.session() as session:
        row = crud.tournament(session, tournament_id)
        if row is None:
            raise ConfigError(f"there is no tournament {tournament_id}")
        if row.status == "published":
            raise ConfigError(f"tournament {tournament_id} is published already")
        name = row.name
        row.status, row.message, row.finished_at = "running", None, None
    run_dir = _run_dir(settings, tournament_id)
    print(f"tournament {tournament_id} ({name}): resumed from {run_dir}", flush=True)

    # None when it was played to the end and cut short while publishing.
    return _finish(
        database,
        settings,
        tournament_id,
        lambda: service.resume(run_dir, options, quiet=_quiet()),
    )


def _run_dir(settings: ServerSettings, tournament_id: int) -> Path:
    return settings.data.tournaments / f"{tournament_id}" / "run"


def _finish(
    database: Database,
    settings: ServerSettings,
    tournament_id: int,
    play: Callable[[], RunOutcome | None],
) -> int:
    """Play (``play``: with its live progress, then the event's summary and figures, as
    ``dp-arena run`` prints them), publish and record tournament ``tournament_id``; an
    exit status."""
    from dp_arena.leaderboard import publish
    from dp_arena.runner.service import closing_lines

    run_dir = _run_dir(settings, tournament_id)
    out = settings.data.tournaments / f"{tournament_id}" / "published"
    try:
        outcome = play()
        if outcome is not None:
            print(closing_lines(outcome, run_dir), flush=True)
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
        name = done.name
    print(f"tournament {tournament_id} ({name}) published: /tournaments/{tournament_id}/")
    return 0
