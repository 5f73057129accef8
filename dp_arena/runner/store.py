"""The checkpoint store: a run directory's SQLite database of finished table units.

``RUN_DIR/store.sqlite`` (WAL journal) holds:

- ``meta``: what the run was started with: the config (as JSON), the code version,
  every bot's content hash, the store's format version;
- ``units``: one row per finished table unit, keyed by its content hash
  (:func:`~dp_arena.runner.fingerprint.unit_id`), with the session, section, table and
  deal count for queries, and the :class:`~dp_arena.results.TableSessionResult` as
  zlib-compressed compact JSON.

Each unit is inserted in its own transaction, so a run killed at any moment (even in
the middle of a commit) leaves every unit either wholly stored or absent: a half-played
unit is never written, and is played again on resume. Inserting a unit that is already
there changes nothing (Ray may run a task twice). Only the driver writes; workers
return results to it. ``synchronous=NORMAL`` in WAL mode survives a killed process;
only a power cut can lose the last commits, which a resume then plays again.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from dp_arena.errors import RunError
from dp_arena.results import TableSessionResult
from dp_arena.tournament.units import TableUnit

__all__ = ["STORE_FILE", "STORE_VERSION", "RunStore"]

STORE_FILE = "store.sqlite"
STORE_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS units (
    unit_id     TEXT PRIMARY KEY,
    session     INTEGER NOT NULL,
    section     INTEGER NOT NULL,
    table_index INTEGER NOT NULL,
    deals       INTEGER NOT NULL,
    result      BLOB NOT NULL  -- zlib(compact JSON of the TableSessionResult)
);
"""
_QUERY_CHUNK = 500  # ids per SELECT ... IN (...), well under SQLite's variable limit


def encode_result(data: Mapping[str, Any]) -> bytes:
    """The stored form of a result's JSON data."""
    return zlib.compress(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode(), 6)


def decode_result(blob: bytes) -> TableSessionResult:
    return TableSessionResult.from_json(json.loads(zlib.decompress(blob)))


class RunStore:
    """The store of one run directory. Open it with :meth:`create` or :meth:`open`."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._connection = connection

    @staticmethod
    def path_in(run_dir: Path) -> Path:
        return run_dir / STORE_FILE

    @classmethod
    def _connect(cls, path: Path) -> sqlite3.Connection:
        try:
            # Autocommit mode: every write below states its own transaction.
            connection = sqlite3.connect(path, isolation_level=None, timeout=30.0)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.executescript(_SCHEMA)
        except sqlite3.Error as error:
            raise RunError(f"{path}: cannot open the checkpoint store: {error}") from None
        return connection

    @classmethod
    def create(cls, run_dir: Path, meta: Mapping[str, str]) -> RunStore:
        """A new store in ``run_dir`` holding ``meta``; refuses when one exists."""
        path = cls.path_in(run_dir)
        if path.exists():
            raise RunError(
                f"{run_dir} already holds a run (store.sqlite); continue it with"
                f" `dp-arena resume {run_dir}` or choose another --run-dir"
            )
        store = cls(path, cls._connect(path))
        with store._transaction():
            store._connection.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [("store_version", STORE_VERSION), *sorted(meta.items())],
            )
        return store

    @classmethod
    def open(cls, run_dir: Path) -> RunStore:
        """The existing store of ``run_dir``; :class:`RunError` when there is none."""
        path = cls.path_in(run_dir)
        if not path.is_file():
            raise RunError(
                f"{run_dir} is not a run directory with a checkpoint store (no {STORE_FILE})"
            )
        store = cls(path, cls._connect(path))
        version = store.meta().get("store_version")
        if version != STORE_VERSION:
            store.close()
            raise RunError(
                f"{path}: store format {version!r} is not the supported {STORE_VERSION!r}"
            )
        return store

    def _transaction(self) -> _Transaction:
        return _Transaction(self._connection)

    def meta(self) -> dict[str, str]:
        rows = self._connection.execute("SELECT key, value FROM meta").fetchall()
        return dict(rows)

    def set_meta(self, key: str, value: str) -> None:
        with self._transaction():
            self._connection.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value)
            )

    def put(self, unit_id: str, unit: TableUnit, result: Mapping[str, Any]) -> bool:
        """Store a finished unit's result JSON in one transaction; ``False`` when the unit
        was stored already (the first result stands)."""
        with self._transaction():
            cursor = self._connection.execute(
                "INSERT OR IGNORE INTO units"
                " (unit_id, session, section, table_index, deals, result)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    unit_id,
                    unit.session,
                    unit.section,
                    unit.table,
                    len(result["deals"]),
                    encode_result(result),
                ),
            )
        return cursor.rowcount == 1

    def get(self, unit_ids: Sequence[str]) -> dict[str, TableSessionResult]:
        """The stored results among ``unit_ids``, by id."""
        found: dict[str, TableSessionResult] = {}
        for start in range(0, len(unit_ids), _QUERY_CHUNK):
            chunk = list(unit_ids[start : start + _QUERY_CHUNK])
            marks = ",".join("?" * len(chunk))
            rows = self._connection.execute(
                f"SELECT unit_id, result FROM units WHERE unit_id IN ({marks})", chunk
            )
            for identifier, blob in rows:
                found[identifier] = decode_result(blob)
        return found

    def count(self) -> int:
        """Finished units stored."""
        return int(self._connection.execute("SELECT COUNT(*) FROM units").fetchone()[0])

    def deals(self) -> int:
        """Table-deals stored (each unit's deals)."""
        return int(
            self._connection.execute("SELECT COALESCE(SUM(deals), 0) FROM units").fetchone()[0]
        )

    def results(self) -> Iterator[tuple[int, int, int, TableSessionResult]]:
        """Every stored result as (session, section, table, result), in that order."""
        rows = self._connection.execute(
            "SELECT session, section, table_index, result FROM units"
            " ORDER BY session, section, table_index"
        )
        for session, section, table, blob in rows:
            yield session, section, table, decode_result(blob)

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the database file (at the end of a run)."""
        self._connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` on an exception."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def __enter__(self) -> None:
        self._connection.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self._connection.execute("ROLLBACK" if exc_type is not None else "COMMIT")
