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

One process at a time writes a store: :meth:`RunStore.create` and :meth:`RunStore.open`
take the run directory's lock (:mod:`dp_arena.rundir.lock`) and :meth:`RunStore.close`
gives it up; :meth:`RunStore.read` opens a store read-only, without the lock, for
readers of finished runs. A store that is damaged — not a SQLite database, a table or
column missing, a result that is not zlib, not JSON or not a result record — raises
:class:`~dp_arena.errors.RunError` naming the file (and the unit), never a result.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar, overload

from dp_arena.errors import RunError
from dp_arena.results import TableSessionResult
from dp_arena.rundir.database import Database
from dp_arena.rundir.layout import RunDir
from dp_arena.rundir.lock import RunLock
from dp_arena.rundir.result_shape import result_problem

__all__ = ["STORE_FILE", "STORE_VERSION", "RunStore"]

_Kept = TypeVar("_Kept")
_Read = TypeVar("_Read")

STORE_FILE = RunDir.STORE
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
_COLUMNS = {
    "meta": frozenset({"key", "value"}),
    "units": frozenset({"unit_id", "session", "section", "table_index", "deals", "result"}),
}
_QUERY_CHUNK = 500  # ids per SELECT ... IN (...), well under SQLite's variable limit


def encode_result(data: Mapping[str, Any]) -> bytes:
    """The stored form of a result's JSON data."""
    return zlib.compress(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode(), 6)


def stored_data(blob: bytes) -> dict[str, Any]:
    """The JSON data of a result in its stored form, as :func:`encode_result` made it
    (a worker's, handed over with its batch: no check beyond what decoding does)."""
    data: dict[str, Any] = json.loads(zlib.decompress(blob))
    return data


class ReadWhenAsked(Sequence[_Read]):
    """``items`` each read through ``read`` only when asked for: what an executor answers
    for a batch whose results it handed on one by one as they arrived, so that the
    answer, seldom read, does not hold a session's results decoded beside them."""

    def __init__(self, items: Sequence[_Kept], read: Callable[[_Kept], _Read]) -> None:
        self._items = items
        self._read = read

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> _Read: ...

    @overload
    def __getitem__(self, index: slice) -> list[_Read]: ...

    def __getitem__(self, index: int | slice) -> _Read | list[_Read]:
        if isinstance(index, slice):
            return [self._read(item) for item in self._items[index]]
        return self._read(self._items[index])


class StoredResults(ReadWhenAsked[dict[str, Any]]):
    """Results kept in their stored form and decoded only when read: what an executor
    answers for a session's units. A result's JSON data takes some 16 KB of memory
    against some 600 bytes stored, and every one was handed on as it arrived, so the
    executor's answer is seldom read."""

    def __init__(self, blobs: Sequence[bytes]) -> None:
        super().__init__(blobs, stored_data)


def decode_result(blob: bytes, where: str = "a stored result") -> TableSessionResult:
    """The result stored as ``blob``; :class:`RunError` starting with ``where`` when it is
    not zlib-compressed JSON of a table-session result with consistent records."""
    if not isinstance(blob, bytes):
        raise RunError(f"{where}: not a stored result (a {type(blob).__name__}, not bytes)")
    try:
        text = zlib.decompress(blob)
    except zlib.error as error:
        raise RunError(f"{where}: not a stored result: not zlib data ({error})") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        reason = "nested too deeply" if isinstance(error, RecursionError) else error
        raise RunError(f"{where}: not a stored result: not JSON ({reason})") from None
    problem = result_problem(data)
    if problem is not None:
        raise RunError(f"{where}: not a table-session result: {problem}")
    return TableSessionResult.from_json(data)


class UnitPlace(Protocol):
    """Where a table unit sits in its event (a :class:`~dp_arena.units.TableUnit` does)."""

    @property
    def session(self) -> int: ...

    @property
    def section(self) -> int: ...

    @property
    def table(self) -> int: ...


class RunStore(Database):
    """The store of one run directory. Open it with :meth:`create`, :meth:`open` or
    :meth:`read`."""

    NOUN = "checkpoint store"
    SCHEMA = _SCHEMA
    COLUMNS = _COLUMNS
    VERSION_KEY = "store_version"
    VERSION = STORE_VERSION

    @staticmethod
    def path_in(run_dir: Path) -> Path:
        return RunDir(run_dir).store

    @classmethod
    def create(
        cls, run_dir: Path, meta: Mapping[str, str], *, lock: RunLock | None = None
    ) -> RunStore:
        """A new store in ``run_dir`` holding ``meta``; refuses when one exists or another
        process runs the directory. ``lock``: the directory's lock, already taken by the
        caller (the store keeps it, and gives it up when it closes)."""
        path = cls.path_in(run_dir)
        lock = lock or RunLock.acquire(run_dir)
        try:
            if path.exists():
                raise RunError(
                    f"{run_dir} already holds a run (store.sqlite); continue it with"
                    f" `dp-arena resume {run_dir}` or choose another --run-dir"
                )
            store = cls(path, cls._connect(path, create=True), lock)
        except BaseException:
            lock.release()
            raise
        with store._transaction():
            store._connection.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [("store_version", STORE_VERSION), *sorted(meta.items())],
            )
        return store

    @classmethod
    def open(cls, run_dir: Path) -> RunStore:
        """The existing store of ``run_dir``, to continue its run; :class:`RunError` when
        there is none, it is damaged, or another process runs the directory."""
        path = cls._existing(run_dir)
        lock = RunLock.acquire(run_dir)
        try:
            store = cls(path, cls._connect(path), lock)
        except BaseException:
            lock.release()
            raise
        return store._checked()

    @classmethod
    def read(cls, run_dir: Path) -> RunStore:
        """The existing store of ``run_dir``, read-only and without the lock (for readers
        of finished runs); :class:`RunError` when there is none or it is damaged."""
        path = cls._existing(run_dir)
        return cls(path, cls._connect(path, writable=False))._checked()

    @classmethod
    def _existing(cls, run_dir: Path) -> Path:
        path = cls.path_in(run_dir)
        if not path.is_file():
            raise RunError(
                f"{run_dir} is not a run directory with a checkpoint store (no {STORE_FILE})"
            )
        return path

    def meta_json(self, key: str, default: Any = None) -> Any:
        """The JSON value stored under ``key`` in ``meta`` (``default`` when absent);
        :class:`RunError` naming the file and the key when it is not JSON."""
        text = self.meta().get(key)
        if text is None:
            return default
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise RunError(f"{self.path}: meta {key!r} is damaged: not JSON") from None

    def put(
        self,
        unit_id: str,
        unit: UnitPlace,
        result: Mapping[str, Any],
        encoded: bytes | None = None,
    ) -> bool:
        """Store a finished unit's result JSON in one transaction (``encoded``: its stored
        form, when the worker made it already); ``False`` when the unit was stored
        already (the first result stands)."""
        with self._transaction():
            cursor = self._execute(
                "INSERT OR IGNORE INTO units"
                " (unit_id, session, section, table_index, deals, result)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    unit_id,
                    unit.session,
                    unit.section,
                    unit.table,
                    len(result["deals"]),
                    encode_result(result) if encoded is None else encoded,
                ),
            )
        return cursor.rowcount == 1

    def get(self, unit_ids: Sequence[str]) -> dict[str, TableSessionResult]:
        """The stored results among ``unit_ids``, by id."""
        found: dict[str, TableSessionResult] = {}
        for start in range(0, len(unit_ids), _QUERY_CHUNK):
            chunk = list(unit_ids[start : start + _QUERY_CHUNK])
            marks = ",".join("?" * len(chunk))
            rows = self._rows(
                "SELECT unit_id, session, section, table_index, result FROM units"
                f" WHERE unit_id IN ({marks})",
                chunk,
            )
            for identifier, session, section, table, blob in rows:
                found[identifier] = decode_result(
                    blob, self._unit_where(session, section, table, identifier)
                )
        return found

    def count(self) -> int:
        """Finished units stored."""
        return int(self._rows("SELECT COUNT(*) FROM units")[0][0])

    def deals(self) -> int:
        """Table-deals stored (each unit's deals)."""
        return int(self._rows("SELECT COALESCE(SUM(deals), 0) FROM units")[0][0])

    def results(self) -> Iterator[tuple[int, int, int, TableSessionResult]]:
        """Every stored result as (session, section, table, result), in that order."""
        rows = self._rows(
            "SELECT session, section, table_index, unit_id, result FROM units"
            " ORDER BY session, section, table_index"
        )
        for session, section, table, identifier, blob in rows:
            where = self._unit_where(session, section, table, identifier)
            if not all(isinstance(number, int) for number in (session, section, table)):
                raise RunError(f"{where}: its session, section or table is not a number")
            yield session, section, table, decode_result(blob, where)

    def _unit_where(self, session: Any, section: Any, table: Any, identifier: Any) -> str:
        unit = str(identifier)[:12]
        return f"{self.path}: unit {unit} (session {session}, section {section}, table {table})"

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the database file (at the end of a run)."""
        self._rows("PRAGMA wal_checkpoint(TRUNCATE)")
