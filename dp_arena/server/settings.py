"""What a server is told when it starts: its database, its data folder, its limits and
how its ladder plays. One frozen record, made from ``dp-arena serve``'s options."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

from dp_arena.errors import ConfigError
from dp_arena.server.db import DEFAULT_URL

__all__ = ["DataDir", "ServerSettings", "default_data_dir"]


def default_data_dir(db_url: str) -> Path:
    """``arena-data/`` beside an SQLite file (``arena.db`` → ``arena-data``), else in
    the working directory."""
    url = make_url(db_url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        database = Path(url.database)
        return (database.parent / f"{database.stem}-data").absolute()
    return Path("arena-data").absolute()


@dataclass(frozen=True, slots=True)
class DataDir:
    """The server's files: the bot registry, archives waiting for their check, the
    secret keys of matches not yet revealed, and tournaments' run folders and pages.
    Owner-only: it holds unrevealed keys."""

    root: Path

    @property
    def registry(self) -> Path:
        return self.root / "registry"

    @property
    def uploads(self) -> Path:
        return self.root / "uploads"

    @property
    def keys(self) -> Path:
        return self.root / "keys"

    @property
    def tournaments(self) -> Path:
        return self.root / "tournaments"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    def create(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o700)
        for folder in (self.uploads, self.keys, self.tournaments, self.logs):
            folder.mkdir(mode=0o700, exist_ok=True)
        self.registry.mkdir(exist_ok=True)

    def match_logs(self, match: int) -> Path:
        """The bots' logs of a match: one folder per player (``name@version/``), one
        file per table it sat at; and the match process's own, ``match.log``."""
        return self.logs / f"match-{match}"

    def upload(self, submission: int, suffix: str) -> Path:
        return self.uploads / f"{submission}{suffix}"

    def key(self, match: int) -> Path:
        return self.keys / f"match-{match}.key"


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """How a server runs. Limits: ``max_upload_bytes`` per archive,
    ``uploads_per_hour`` per author, ``max_checking`` submissions of one author waiting
    for their check at once, ``requests_per_minute`` and ``writes_per_minute`` per client
    address (0: none; :mod:`dp_arena.server.limits`). The ladder: ``ladder`` on or off,
    ``ladder_deals`` per match, the table (``betting``, blinds, ``cap``), the executor
    (``serial`` or ``ray``, ``workers``, ``ray_address``) and ``ladder_pause`` seconds
    between matches. ``check_states``: random states of the conformance check (as ``submit``).
    ``behind_proxy``: trust ``X-Forwarded-Proto`` for secure cookies. ``table_size``:
    players per ladder match (2 to 6: that many mirrored tables); ``house_bots``: the
    built-ins seated as house bots; ``match_timeout``: seconds a match may take before
    it is cut (``None``: 600 plus 2 a table-deal). Connections: ``header_timeout``
    seconds to send a request's head, ``body_timeout`` its body, ``idle_timeout``
    seconds a kept-alive connection
    may wait for its next request, ``max_connections`` at once in all and
    ``max_connections_per_client`` from one address (:mod:`dp_arena.server.connections`)."""

    db_url: str = DEFAULT_URL
    data_dir: Path | None = None
    max_upload_bytes: int = 16 * 1024 * 1024
    uploads_per_hour: int = 30
    max_checking: int = 5
    requests_per_minute: int = 1200
    writes_per_minute: int = 120
    ladder: bool = True
    ladder_deals: int = 200
    betting: str = "no-limit"
    small_blind: int = 10
    big_blind: int = 20
    cap: int = 1000
    executor: str = "serial"
    workers: int | None = None
    ray_address: str | None = None
    ladder_pause: float = 0.0
    check_states: int = 200
    resamples: int = 1000
    behind_proxy: bool = False
    title: str = "dp-arena ladder"
    table_size: int = 2
    house_bots: tuple[str, ...] = ()
    match_timeout: float | None = None
    header_timeout: float = 10.0
    body_timeout: float = 120.0
    idle_timeout: float = 5.0
    max_connections: int = 1000
    max_connections_per_client: int = 50

    def __post_init__(self) -> None:
        if self.ladder_deals < 1:
            raise ConfigError("--ladder-deals must be at least 1", field="ladder_deals")
        if self.max_upload_bytes < 1024:
            raise ConfigError("--max-upload-bytes must be at least 1024", field="max_upload")
        if self.uploads_per_hour < 1:
            raise ConfigError("--uploads-per-hour must be at least 1", field="uploads_per_hour")
        if self.requests_per_minute < 0 or self.writes_per_minute < 0:
            raise ConfigError(
                "--requests-per-minute and --writes-per-minute are at least 0 (0: no limit)",
                field="requests_per_minute",
            )
        if self.executor not in ("serial", "ray"):
            raise ConfigError("--executor must be serial or ray", field="executor")
        if self.ray_address is not None and self.executor != "ray":
            raise ConfigError("--ray-address needs --executor ray", field="ray_address")
        if not 2 <= self.table_size <= 6:
            raise ConfigError(
                f"--table-size is 2 to 6 players, not {self.table_size}", field="table_size"
            )
        if self.match_timeout is not None and self.match_timeout <= 0:
            raise ConfigError("--match-timeout must be positive", field="match_timeout")
        if min(self.header_timeout, self.body_timeout, self.idle_timeout) <= 0:
            raise ConfigError(
                "--header-timeout, --body-timeout and --idle-timeout must be positive",
                field="header_timeout",
            )
        if not 1 <= self.max_connections_per_client <= self.max_connections:
            raise ConfigError(
                "--max-connections-per-client is at least 1 and at most --max-connections",
                field="max_connections",
            )

    def timeout_of(self, deals: int, tables: int) -> float:
        """Seconds a match of ``deals`` deals at ``tables`` tables may take."""
        if self.match_timeout is not None:
            return self.match_timeout
        return 600.0 + 2.0 * deals * tables

    @property
    def data(self) -> DataDir:
        return DataDir(self.data_dir or default_data_dir(self.db_url))
