"""The server's database: an SQLAlchemy engine for a URL (an SQLite file by default,
PostgreSQL by ``postgresql://...``), sessions, and the schema brought up to date by the
Alembic migrations shipped in the package.

A submitted bot's version is the bot registry's (:mod:`dp_arena.registry.store`): the
database names it (``name@version``) and asks the registry for the rest, so a database
is opened with the registry beside it (``registry``), which its sessions and migrations
are given.

SQLite runs in WAL mode with foreign keys on, so readers never wait for the ladder's
writes and a kill -9 loses nothing committed. ``postgresql://`` URLs use psycopg 3.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import Session, sessionmaker

from dp_arena.errors import ConfigError
from dp_arena.server.versions import REGISTRY

__all__ = ["DEFAULT_URL", "Database", "normalise_url"]

DEFAULT_URL = "sqlite:///arena.db"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"

log = logging.getLogger("dp_arena.server")


def normalise_url(url: str) -> str:
    """``postgresql://`` and ``postgres://`` take the psycopg 3 driver; SQLite and
    explicit drivers are left as they are. Anything else is refused."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError) as error:
        raise ConfigError(f"--db: not a database URL: {url!r} ({error})", field="db") from None
    backend = parsed.get_backend_name()
    if backend in ("postgresql", "postgres"):
        if parsed.drivername in ("postgresql", "postgres"):
            parsed = parsed.set(drivername="postgresql+psycopg")
        return parsed.render_as_string(hide_password=False)
    if backend == "sqlite":
        return url
    raise ConfigError(
        f"--db: use sqlite:///FILE or postgresql://USER@HOST/NAME, not {parsed.drivername}://",
        field="db",
    )


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()


class Database:
    """One database: its engine, a session factory and its migrations; ``registry`` is
    the folder of the bot registry whose versions its submissions name."""

    def __init__(self, url: str = DEFAULT_URL, *, registry: Path | None = None) -> None:
        self.url = normalise_url(url)
        self.registry = registry
        arguments: dict[str, Any] = {}
        if self.url.startswith("sqlite"):
            # Threads of one server share the engine; SQLite waits up to 30 s for a lock.
            arguments["connect_args"] = {"check_same_thread": False, "timeout": 30}
        else:
            arguments["pool_pre_ping"] = True
        self.engine: Engine = create_engine(self.url, **arguments)
        if self.url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self._sessions = sessionmaker(
            self.engine, expire_on_commit=False, info={REGISTRY: registry}
        )

    @property
    def display_url(self) -> str:
        """The URL without its password, for logs and messages."""
        return make_url(self.url).render_as_string(hide_password=True)

    @contextlib.contextmanager
    def session(self) -> Iterator[Session]:
        """A session committed at the end of the block, rolled back if it raises."""
        session = self._sessions()
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def migrate(self, revision: str = "head") -> str | None:
        """Bring the schema up to the newest migration (a new database gets every one),
        or to ``revision``; one line in the server's log says so when any ran (Alembic's
        own lines are kept for warnings). The revision the database was at before, or
        ``None``."""
        logging.getLogger("alembic").setLevel(logging.WARNING)  # before it sets up plugins
        from alembic import command

        before = self.revision()
        self._migrations(lambda config: command.upgrade(config, revision))
        after = self.revision()
        if after != before:
            log.info(
                "database schema %s: now at migration %s",
                "made" if before is None else f"upgraded from migration {before}",
                after,
            )
        return before

    def downgrade(self, revision: str) -> None:
        """Take the schema back to ``revision`` (for a test, or an upgrade undone)."""
        from alembic import command

        self._migrations(lambda config: command.downgrade(config, revision))

    def _migrations(self, run: Callable[[Any], None]) -> None:
        sqlite = self.url.startswith("sqlite")
        with self.engine.connect() as connection:
            if sqlite:
                # SQLite changes a table by copying it: the copy may not be refused for the
                # rows that point at it. The keys are checked again before the commit.
                connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
                connection.commit()
            try:
                with connection.begin():
                    run(_alembic_config(connection, self.registry))
                    if sqlite:
                        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
                        if broken:
                            raise RuntimeError(f"a migration broke foreign keys: {broken[:5]}")
            finally:
                if sqlite:
                    connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                    connection.commit()

    def revision(self) -> str | None:
        """The migration the database is at (``None`` for an empty database)."""
        from alembic.runtime.migration import MigrationContext

        with self.engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()

    def tables(self) -> list[str]:
        return sorted(inspect(self.engine).get_table_names())

    def close(self) -> None:
        self.engine.dispose()


def _alembic_config(connection: Any, registry: Path | None) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    config.attributes[REGISTRY] = registry
    return config
