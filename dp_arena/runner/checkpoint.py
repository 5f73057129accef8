"""An executor that checkpoints: every finished unit goes to the store before the event
hears of it, and a unit already in the store is not played again.

:class:`CheckpointExecutor` wraps any executor (serial or Ray). For each batch of units
the event driver hands it, it looks every unit up in the store by its content hash,
answers the stored ones at once, and passes only the missing ones to the executor it
wraps; each result that comes back is committed to the store, then decoded *from what
was stored* and handed on. So an uninterrupted run and a resumed one see exactly the
same records, and ``dp-arena resume`` is nothing more than running the deterministic
event driver again over the same store.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from dp_arena.errors import RunError
from dp_arena.results import TableSessionResult, to_json
from dp_arena.rundir.store import ReadWhenAsked, RunStore
from dp_arena.runner.fingerprint import unit_id
from dp_arena.runner.progress import RunLog, RunProgress
from dp_arena.units import Executor, OnResult, TableUnit

__all__ = ["CheckpointExecutor", "JsonExecutor", "ResultSink"]

# What a JSON executor tells of each result as it arrives: its index among the units, its
# JSON data, its hand history as the worker wrote it (or ``None``), and its stored form
# as the worker encoded it (or ``None``: the store encodes the data itself).
ResultSink = Callable[[int, dict[str, Any], str | None, bytes | None], None]


class JsonExecutor(Executor, Protocol):
    """An executor that hands results on as JSON data, each with its hand history as the
    worker wrote it when ``histories`` is asked for. :meth:`run_json` has a default: the
    executor's own ``run``, each result encoded as it arrives and without a history (the
    driver writes it), so an executor that plays in this process needs only ``run``;
    Ray's overrides it to save the decode and the encode again."""

    def run_json(
        self,
        units: Sequence[TableUnit],
        on_result: ResultSink | None = None,
        *,
        histories: bool = False,
    ) -> Sequence[dict[str, Any]]:
        """Results of ``units`` as JSON data, in the order of ``units``;
        ``on_result(index, data, history, stored)`` is told of each as it arrives."""
        del histories  # no worker writes any: the driver does

        def deliver(index: int, result: TableSessionResult) -> None:
            if on_result is not None:
                on_result(index, to_json(result), None, None)

        return ReadWhenAsked(self.run(units, deliver), to_json)


class CheckpointExecutor:
    """Runs units through ``inner``, storing each result in ``store`` as it arrives and
    answering units already stored from the store."""

    def __init__(
        self,
        inner: JsonExecutor,
        store: RunStore,
        *,
        progress: RunProgress | None = None,
        log: RunLog | None = None,
        histories: bool = False,
    ) -> None:
        self.inner = inner
        self.store = store
        self.progress = progress
        self.log = log
        self.histories = histories  # ask workers for hand histories (a JSON executor's)
        self.units_played = 0
        self.units_from_store = 0
        self._written: dict[tuple[int, int, int], str] = {}

    def history_of(self, unit: TableUnit) -> str | None:
        """The hand history the worker wrote for ``unit`` (once; ``None`` when it wrote
        none, as for a unit answered from the store)."""
        return self._written.pop(unit.key, None)

    def run(
        self, units: Sequence[TableUnit], on_result: OnResult | None = None
    ) -> Sequence[TableSessionResult]:
        identifiers = [unit_id(unit) for unit in units]
        stored = self.store.get(identifiers)
        # Whether each unit's result is in; the results themselves are handed on as they
        # arrive and then read back from the store only if asked for (below).
        done = [False] * len(units)
        deals = 0
        session = units[0].session if units else 0
        if self.progress is not None:
            self.progress.session_started(session, len(units))

        def deliver(index: int, result: TableSessionResult, *, from_store: bool) -> None:
            nonlocal deals
            done[index] = True
            deals += len(result.deals)
            if self.progress is not None:
                self.progress.unit_done(len(result.deals), stored=from_store)
            if on_result is not None:
                on_result(index, result)

        for index, identifier in enumerate(identifiers):
            if identifier in stored:
                _check_fits(units[index], stored[identifier], self.store, identifier)
                deliver(index, stored[identifier], from_store=True)
        del stored
        missing = [index for index, finished in enumerate(done) if not finished]
        self.units_from_store += len(units) - len(missing)

        def finished(
            position: int,
            data: dict[str, Any],
            history: str | None = None,
            stored: bytes | None = None,
        ) -> None:
            index = missing[position]
            if done[index]:  # told twice: the first result stands
                return
            self.store.put(identifiers[index], units[index], data, stored)
            if history is not None:
                self._written[units[index].key] = history
            self.units_played += 1
            deliver(index, TableSessionResult.from_json(data), from_store=False)

        if missing:
            batch = [units[index] for index in missing]
            answered = self.inner.run_json(batch, finished, histories=self.histories)
            for position in range(len(answered)):  # (read only where it was not handed on)
                if not done[missing[position]]:
                    finished(position, answered[position])
        if self.log is not None:
            self.log.write(
                f"session {session}: {len(units)} table-sessions, {deals} table-deals"
                f" ({len(units) - len(missing)} from the store)"
            )
        # Read back from the store only if asked: each was handed on as it arrived, and
        # holding a session's results decoded to its last table would cost the driver
        # some 10 KB a table-session (docs/scaling.md).
        store = self.store
        return ReadWhenAsked(identifiers, lambda identifier: store.get([identifier])[identifier])


def _check_fits(unit: TableUnit, result: TableSessionResult, store: RunStore, key: str) -> None:
    """A stored result is its unit's: the same table, players and number of deals (a
    store whose rows were swapped or edited must not put wrong results in an event)."""
    found = (result.table, result.players, len(result.deals))
    if found != (unit.table, unit.players, unit.deals):
        players = ", ".join(result.players)[:200]
        raise RunError(
            f"{store.path}: unit {key[:12]} (session {unit.session}, section {unit.section},"
            f" table {unit.table}) holds the result of another table-session (table"
            f" {result.table}, {len(result.deals)} deals, players {players}):"
            " the store is damaged; start a new run"
        )
