"""What a run directory's SQLite databases share: the checkpoint store
(:class:`~dp_arena.rundir.store.RunStore`) and the rollout sidecar
(:class:`~dp_arena.rundir.rollouts.RolloutStore`) are each a :class:`Database`: opened in
autocommit mode with a WAL journal when written (read-only and without the lock when
read), a ``meta`` table of text, every write in its own ``BEGIN IMMEDIATE`` transaction,
and every SQLite error turned into a :class:`~dp_arena.errors.RunError` naming the file.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Self

from dp_arena.errors import RunError
from dp_arena.rundir.lock import RunLock

__all__ = ["Database"]


class Database:
    """One database file of a run directory. A kind of database says what it is called in
    messages (``NOUN``), its tables (``SCHEMA``, and the columns each must have:
    ``COLUMNS``), and the ``meta`` key and value of its format (``VERSION_KEY``,
    ``VERSION``)."""

    NOUN: ClassVar[str]
    SCHEMA: ClassVar[str]
    COLUMNS: ClassVar[Mapping[str, frozenset[str]]]
    VERSION_KEY: ClassVar[str]
    VERSION: ClassVar[str]

    def __init__(
        self, path: Path, connection: sqlite3.Connection, lock: RunLock | None = None
    ) -> None:
        self.path = path
        self._connection = connection
        self._lock = lock

    @classmethod
    def _connect(
        cls, path: Path, *, create: bool = False, writable: bool = True
    ) -> sqlite3.Connection:
        if writable:
            # Autocommit mode: every write below states its own transaction.
            connect = functools.partial(sqlite3.connect, path, isolation_level=None)
        else:
            connect = functools.partial(
                sqlite3.connect, f"{path.resolve().as_uri()}?mode=ro", uri=True
            )
        try:
            connection = connect(timeout=30.0)
        except sqlite3.Error as error:
            raise RunError(f"{path}: cannot open the {cls.NOUN}: {error}") from None
        try:
            if writable:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")
            if create:
                connection.executescript(cls.SCHEMA)
            missing = None if create else _schema_problem(connection, cls.COLUMNS)
        except sqlite3.Error as error:
            connection.close()
            raise RunError(f"{path}: cannot open the {cls.NOUN}: {error}") from None
        if missing is not None:
            connection.close()
            raise RunError(f"{path}: not a dp-arena {cls.NOUN}: {missing}")
        return connection

    def _checked(self) -> Self:
        """Itself, when its format is the supported one (else closed, and an error)."""
        try:
            version = self.meta().get(self.VERSION_KEY)
        except BaseException:
            self.close()
            raise
        if version != self.VERSION:
            self.close()
            raise RunError(
                f"{self.path}: {self.NOUN} format {version!r} is not the supported {self.VERSION!r}"
            )
        return self

    def _transaction(self) -> _Transaction:
        return _Transaction(self._connection, self.path, self.NOUN)

    def _rows(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        """The rows of a query; :class:`RunError` naming the file when SQLite finds the
        database damaged."""
        try:
            return self._connection.execute(sql, parameters).fetchall()
        except sqlite3.Error as error:
            raise RunError(f"{self.path}: the {self.NOUN} cannot be read: {error}") from None

    def meta(self) -> dict[str, str]:
        rows = self._rows("SELECT key, value FROM meta")
        if not all(isinstance(key, str) and isinstance(value, str) for key, value in rows):
            raise RunError(f"{self.path}: the {self.NOUN}'s meta table is damaged")
        return dict(rows)

    def set_meta(self, key: str, value: str) -> None:
        with self._transaction():
            self._execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def _execute(self, sql: str, parameters: Sequence[Any]) -> sqlite3.Cursor:
        try:
            return self._connection.execute(sql, parameters)
        except sqlite3.Error as error:
            raise RunError(f"{self.path}: cannot write the {self.NOUN}: {error}") from None

    def close(self) -> None:
        """Close the database and give up the run directory's lock (again: nothing)."""
        try:
            self._connection.close()
        finally:
            if self._lock is not None:
                self._lock.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` on an exception."""

    def __init__(self, connection: sqlite3.Connection, path: Path, noun: str) -> None:
        self._connection = connection
        self._path = path
        self._noun = noun

    def __enter__(self) -> None:
        try:
            self._connection.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise RunError(f"{self._path}: cannot write the {self._noun}: {error}") from None

    def __exit__(self, exc_type: object, *rest: object) -> None:
        try:
            self._connection.execute("ROLLBACK" if exc_type is not None else "COMMIT")
        except sqlite3.Error as error:
            if exc_type is None:
                raise RunError(f"{self._path}: cannot write the {self._noun}: {error}") from None


def _schema_problem(
    connection: sqlite3.Connection, tables: Mapping[str, frozenset[str]]
) -> str | None:
    """What an existing database lacks of the tables and columns it must have, if anything."""
    for table, columns in tables.items():
        found = {row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')}
        if not found:
            return f"the table {table!r} is missing"
        if columns - found:
            return f"the table {table!r} lacks {', '.join(sorted(columns - found))}"
    return None
