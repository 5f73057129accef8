"""What a worker process does with a batch of table units: play them, answer plain data.

:func:`run_batch` is the body of the Ray task (it lives in the installed package so
every node of a cluster imports the same function by name). It reads each unit from
plain JSON data, finds the files of the bots that travel with the batch
(:func:`~dp_arena.runner.parcels.locate`), seats its bots itself, plays the unit with
:func:`~dp_arena.units.run_unit`, writes its hand history, and returns the
results as JSON data and the histories as text, with a little about the worker: its
host and Ray node, the folder and code version of the dp-arena it runs (the driver
refuses results from a different one), process id and peak memory.
"""

from __future__ import annotations

import os
import resource
import socket
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from dp_arena.results import to_json
from dp_arena.rundir.store import encode_result
from dp_arena.runner.fingerprint import code_version, package_folder
from dp_arena.runner.parcels import locate
from dp_arena.units import Located, TableUnit, prepare_units, run_unit
from dp_arena.units.histories import empty_history

__all__ = ["play_units", "run_batch", "warm_up"]

# The source this worker process loaded: hashed at its first batch and kept, so a worker
# left running across an upgrade of the files still answers with what it runs.
_loaded_version: str | None = None


def warm_up() -> int:
    """Nothing: importing this module (the engine, its evaluator's tables, the agent API)
    is the work. Run once per worker at start-up, so that start-up is not billed to the
    first table-sessions. The worker's process id."""
    return os.getpid()


def run_batch(
    units: Sequence[dict[str, Any]],
    histories: bool = True,
    parcels: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Play ``units`` (each as :meth:`TableUnit.to_json` data) in order; their results in
    the form the driver stores them (:func:`~dp_arena.rundir.store.encode_result`:
    compressed JSON, a fraction of the data's size, which the driver then need not
    encode), their hand histories (PHH text, when ``histories``: the driver only writes
    them), and the worker's facts. ``parcels``: spec -> the descriptor of the parcel of
    a bot that travels (:meth:`~dp_arena.runner.parcels.Parcel.descriptor`)."""
    global _loaded_version
    if _loaded_version is None:
        _loaded_version = code_version()
    located = locate(parcels, _fetch) if parcels else {}
    results, texts = [], []
    for data, text in play_units(
        [TableUnit.from_json(unit) for unit in units], histories=histories, located=located
    ):
        results.append(encode_result(data))
        texts.append(text)
    return {
        "results": results,
        "histories": texts,
        "code_version": _loaded_version,
        "host": socket.gethostname(),
        "package": package_folder(),
        "pid": os.getpid(),
        "node": _node_id(),
        "copied_bots": sorted(located),
        # Linux reports kibibytes.
        "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }


def play_units(
    units: Sequence[TableUnit], *, histories: bool, located: Located | None = None
) -> Iterator[tuple[dict[str, Any], str | None]]:
    """Play ``units`` in order in this process, yielding each one's result as JSON data
    and, when ``histories``, its hand history: each hand is recorded as it finishes,
    which gives the text the driver would otherwise rebuild by replaying the hands."""
    prepare_units(units, located)
    for unit in units:
        history = empty_history(unit) if histories else None
        result = run_unit(unit, located, on_deal=None if history is None else history.record)
        if history is not None:
            for record in result.deals:
                history.note_mixes(record.deal, record.mixes)
        yield to_json(result), None if history is None else history.text()


def _node_id() -> str | None:
    """The id of the Ray node this runs on (``None`` outside Ray)."""
    import ray

    if not ray.is_initialized():
        return None
    return str(ray.get_runtime_context().get_node_id())


def _fetch(reference: Any) -> Any:
    """A parcel's files from Ray's object store (this runs in a Ray worker)."""
    import ray

    return ray.get(reference)
