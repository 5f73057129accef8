"""The rollout values of a finished run: ``RUN_DIR/rollouts.sqlite``, beside the store.

``dp-arena rollouts RUN_DIR`` (:mod:`dp_arena.runner.rollouts`) values every decision the
dealer drew from a bot's mix by rollouts, after the event, and keeps the values here,
never in the checkpoint store (which stays as the run wrote it, so ``verify`` of the run
is unchanged). The database holds:

- ``meta``: the sidecar's format, the rollouts per action (``rollouts``), the rollout
  scheme's version, the code version that computed the values, the SHA-256 of the
  ``results.json`` they belong to, and ``complete`` once every table-session is valued;
- ``values``: one row per table-session valued, keyed like the store's units (the unit's
  id, with its session, section and table), holding for each of its deals, in order,
  the deal record's ``values`` (zlib-compressed compact JSON).

Each table-session is committed in its own transaction, so a command killed at any
moment leaves every table-session wholly valued or absent, and a new command goes on
from there. A sidecar that is damaged raises :class:`~dp_arena.errors.RunError` naming
the file (and the table-session), never a value.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from dp_arena.errors import RunError
from dp_arena.results import TableSessionResult
from dp_arena.rundir.database import Database
from dp_arena.rundir.layout import RunDir
from dp_arena.rundir.lock import RunLock
from dp_arena.rundir.store import UnitPlace

__all__ = [
    "ROLLOUTS_VERSION",
    "DealValues",
    "RolloutStore",
    "RolloutValues",
    "read_values",
    "with_values",
]

ROLLOUTS_VERSION = "1"

# One deal record's values: (index of the action, per action of its mix every seat's
# value as an exact fraction's text), as :attr:`DealRecord.values` keeps them.
DealValues = tuple[tuple[int, tuple[tuple[str, ...], ...]], ...]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS "values" (
    unit_id     TEXT PRIMARY KEY,
    session     INTEGER NOT NULL,
    section     INTEGER NOT NULL,
    table_index INTEGER NOT NULL,
    deals       INTEGER NOT NULL,
    data        BLOB NOT NULL  -- zlib(compact JSON: per deal, its records' values)
);
"""
_COLUMNS = {
    "meta": frozenset({"key", "value"}),
    "values": frozenset({"unit_id", "session", "section", "table_index", "deals", "data"}),
}


class RolloutStore(Database):
    """The rollout sidecar of one run directory: :meth:`create` or :meth:`open` it to
    write (holding the directory's lock), :meth:`read` it to read."""

    NOUN = "rollout sidecar"
    SCHEMA = _SCHEMA
    COLUMNS = _COLUMNS
    VERSION_KEY = "rollouts_version"
    VERSION = ROLLOUTS_VERSION

    @classmethod
    def create(cls, run_dir: Path, meta: Mapping[str, str], lock: RunLock) -> RolloutStore:
        """A new, empty sidecar holding ``meta`` (any old one is replaced); ``lock``: the
        directory's lock, taken by the caller and given up when the sidecar closes."""
        path = RunDir(run_dir).rollouts
        for old in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            old.unlink(missing_ok=True)
        store = cls(path, cls._connect(path, create=True), lock)
        with store._transaction():
            store._connection.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [("rollouts_version", ROLLOUTS_VERSION), *sorted(meta.items())],
            )
        return store

    @classmethod
    def open(cls, run_dir: Path, lock: RunLock) -> RolloutStore:
        """The existing sidecar of ``run_dir``, to go on writing it."""
        path = RunDir(run_dir).rollouts
        return cls(path, cls._connect(path), lock)._checked()

    @classmethod
    def read(cls, run_dir: Path) -> RolloutStore:
        """The existing sidecar of ``run_dir``, read-only, without the lock."""
        path = RunDir(run_dir).rollouts
        if not path.is_file():
            raise RunError(f"{run_dir} has no rollout values ({RunDir.ROLLOUTS})")
        return cls(path, cls._connect(path, writable=False))._checked()

    def put(self, unit_id: str, unit: UnitPlace, result: TableSessionResult) -> None:
        """Keep the values of every deal of ``result`` (a valued table-session) in one
        transaction."""
        data = [[[decision, rows] for decision, rows in record.values] for record in result.deals]
        blob = zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 6)
        with self._transaction():
            self._execute(
                'INSERT OR REPLACE INTO "values"'
                " (unit_id, session, section, table_index, deals, data)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (unit_id, unit.session, unit.section, unit.table, len(result.deals), blob),
            )

    def unit_ids(self) -> set[str]:
        """The ids of the table-sessions valued."""
        return {str(row[0]) for row in self._rows('SELECT unit_id FROM "values"')}

    def values(self) -> Iterator[tuple[tuple[int, int, int], str, tuple[DealValues, ...]]]:
        """Every valued table-session as ((session, section, table), unit id, its deals'
        values), in that order."""
        rows = self._rows(
            'SELECT session, section, table_index, unit_id, deals, data FROM "values"'
            " ORDER BY session, section, table_index"
        )
        for session, section, table, identifier, deals, blob in rows:
            where = f"{self.path}: session {session}, section {section}, table {table}"
            if not all(isinstance(number, int) for number in (session, section, table, deals)):
                raise RunError(f"{where}: its session, section, table or deals is not a number")
            found = _decoded(blob, where)
            if len(found) != deals:
                raise RunError(f"{where}: {len(found)} deals of values, {deals} listed")
            yield (session, section, table), str(identifier), found


@dataclass(frozen=True, slots=True)
class RolloutValues:
    """A finished sidecar's values: ``rollouts`` per action, and every table-session's
    deals' values by (session, section, table)."""

    rollouts: int
    tables: Mapping[tuple[int, int, int], tuple[DealValues, ...]]


def read_values(run_dir: Path) -> RolloutValues | None:
    """The values of ``run_dir``'s sidecar, when it holds every table-session's (``None``
    when there is none, or when the command that makes it has not finished: an unfinished
    sidecar is not used); :class:`RunError` naming the file when it is damaged or belongs
    to another ``results.json``."""
    layout = RunDir(run_dir)
    if not layout.rollouts.is_file():
        return None
    with RolloutStore.read(run_dir) as store:
        meta = store.meta()
        if meta.get("complete") != "yes":
            return None
        digest = hashlib.sha256(layout.results.read_bytes()).hexdigest()
        if meta.get("results_sha256") != digest:
            raise RunError(
                f"{store.path}: its values belong to another results.json (its SHA-256"
                f" differs); value this run again with `dp-arena rollouts {run_dir} --force`"
            )
        rollouts = meta.get("rollouts", "")
        if not rollouts.isdigit() or int(rollouts) < 1:
            raise RunError(f"{store.path}: meta 'rollouts' is {rollouts!r}, not a count")
        tables = {place: values for place, _, values in store.values()}
    return RolloutValues(int(rollouts), tables)


def with_values(
    result: TableSessionResult, values: Sequence[DealValues], where: str
) -> TableSessionResult:
    """``result`` with its deal records' values; :class:`RunError` starting with ``where``
    when they are not as many as its deals."""
    if len(values) != len(result.deals):
        raise RunError(f"{where}: values of {len(values)} deals, the store has {len(result.deals)}")
    records = tuple(
        replace(record, values=found) if found else record
        for record, found in zip(result.deals, values, strict=True)
    )
    return replace(result, deals=records)


def _decoded(blob: Any, where: str) -> tuple[DealValues, ...]:
    """The deals' values stored as ``blob``; :class:`RunError` when they are not."""
    try:
        data = json.loads(zlib.decompress(blob))
    except (TypeError, zlib.error, ValueError, RecursionError) as error:
        raise RunError(f"{where}: not stored rollout values ({error})") from None
    try:
        return tuple(
            tuple(
                (_index(decision), tuple(tuple(_text(value) for value in row) for row in rows))
                for decision, rows in deal
            )
            for deal in data
        )
    except (TypeError, ValueError) as error:
        raise RunError(f"{where}: not stored rollout values ({error})") from None


def _index(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"a decision's index is {value!r:.40}")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"a value is {value!r:.40}, not a fraction's text")
    return value
