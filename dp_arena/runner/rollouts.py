"""Rollout values for a finished event: what ``dp-arena rollouts RUN_DIR`` does.

The adjusted score takes out of every net the luck of each action the dealer drew from a
bot's mix, valued by a fixed blend unless the deal record keeps values of its own
(:mod:`dp_arena.rollouts`). Rollouts play the hand on after each action of the mix with
the deal's real cards, which no bot may see before every mirrored table has played the
deal: once an event is over that holds for every deal, and the key is revealed. So the
organiser values the draws after the event:

- every stored table-session, in the order the event played them (the event driver fed
  the stored results, as ``verify`` does), has its rollouts played by **fresh copies** of
  its bots, opened as the run opened its seats: built-ins and trusted bots in this
  process, every other bot sandboxed, each copy its own process; absent players stay
  absent. Its values are committed to the sidecar (:class:`~dp_arena.rundir.rollouts.
  RolloutStore`) in one transaction, and its copies closed;
- the numbers of the rollouts come from the revealed key and the table-session's place,
  so the same run gives the same values on any machine;
- a command killed at any moment goes on, run again, from the first table-session not
  valued; one run with other ``rollouts`` (or by other code) refuses unless ``force``,
  which values the event again from the start.

The checkpoint store is not touched: ``verify`` of the run is the same with or without
the sidecar, and checks the sidecar's shape when it is there.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dp_arena.errors import ConfigError, RunError
from dp_arena.results import TableSessionResult
from dp_arena.rollouts import ROLLOUT_VERSION
from dp_arena.rundir import RunDir, RunLock
from dp_arena.rundir.rollouts import RolloutStore
from dp_arena.runner.fingerprint import code_version, config_from_json, unit_id
from dp_arena.runner.replay import run_code_problems
from dp_arena.runner.verify import open_finished_store, read_finished_results, revealed_key
from dp_arena.runner.verify_rollouts import rollouts_of, unit_values
from dp_arena.runner.verify_tables import CLASSIC, stored_units
from dp_arena.tournament.config import with_key
from dp_arena.units import TableUnit, prepare_units

__all__ = ["RolloutProgress", "event_rollouts", "rollout_meta"]


@dataclass(slots=True)
class RolloutProgress:
    """How far the command is: table-sessions valued of ``total`` (``kept``: valued by an
    earlier command and kept), rollouts played and the seconds taken by this one."""

    total: int = 0
    done: int = 0
    kept: int = 0
    rollouts: int = 0
    seconds: float = 0.0


def rollout_meta(run_dir: Path, rollouts: int) -> dict[str, str]:
    """What a sidecar of ``rollouts`` made now for ``run_dir`` records: its rollouts, the
    rollout scheme's version, the code version, and the SHA-256 of the ``results.json``
    it belongs to."""
    return {
        "rollouts": str(rollouts),
        "rollout_version": str(ROLLOUT_VERSION),
        "code_version": code_version(),
        "results_sha256": hashlib.sha256(RunDir(run_dir).results.read_bytes()).hexdigest(),
    }


def event_rollouts(
    run_dir: Path,
    *,
    rollouts: int,
    force: bool = False,
    on_progress: Callable[[RolloutProgress], None] | None = None,
) -> RolloutProgress:
    """Value every draw of the finished run in ``run_dir`` by ``rollouts`` rollouts per
    action into its sidecar (see the module); ``on_progress`` is told after each
    table-session. :class:`RunError` naming the file when ``run_dir`` holds no finished
    run with a revealed key, when its bots' code changed, or when the sidecar holds other
    rollouts (unless ``force``)."""
    if rollouts < 1:
        raise RunError(f"--rollouts must be at least 1, not {rollouts}")
    if not Path(run_dir).is_dir():
        raise RunError(f"{run_dir} is not a directory: it holds no finished run")
    results = read_finished_results(run_dir, "valued by rollouts")
    key = revealed_key(run_dir, results)
    store = open_finished_store(run_dir, "value by rollouts")
    try:
        meta = store.meta()
        try:
            config = with_key(config_from_json(json.loads(meta["config"])), key)
        except (KeyError, ValueError, ConfigError) as error:
            raise RunError(f"{store.path}: the stored config cannot be read: {error}") from None
        if config.format == CLASSIC:
            raise RunError(
                f"{run_dir}: a classic freezeout is played hand by hand, not in table-sessions:"
                " it has no table-sessions to value by rollouts"
            )
        refused = run_code_problems(config, meta, run_dir)
        if refused:
            raise RunError(
                f"{run_dir}: the rollouts would not be played by the event's bots: "
                + "; ".join(refused)
            )
        units = stored_units(config, store)
        lock = RunLock.acquire(run_dir)
        sidecar = _sidecar(run_dir, rollout_meta(run_dir, rollouts), lock, force=force)
        try:
            return _value(units, store.get, sidecar, rollouts, on_progress)
        finally:
            sidecar.close()
    finally:
        store.close()


def _sidecar(run_dir: Path, wanted: dict[str, str], lock: RunLock, *, force: bool) -> RolloutStore:
    """The sidecar to write: the one there when it was made as ``wanted`` says (or by
    other code, when it is finished), else (with ``force``, or when there is none) a new
    one."""
    path = RunDir(run_dir).rollouts
    try:
        if not path.exists() or force:
            return RolloutStore.create(run_dir, wanted, lock)
        sidecar = RolloutStore.open(run_dir, lock)
    except BaseException:
        lock.release()
        raise
    found = sidecar.meta()
    version = found.get("code_version", "?")[:12]
    differs = [name for name in wanted if found.get(name) != wanted[name]]
    if differs == ["code_version"] and found.get("complete") == "yes":
        differs = []  # every value is there: nothing for this code to add
    if differs:
        sidecar.close()
        what = {
            "rollouts": f"--rollouts {found.get('rollouts')}",
            "rollout_version": f"rollout scheme {found.get('rollout_version')}",
            "code_version": f"another dp-arena (code version {version})",
            "results_sha256": "another results.json (its SHA-256 differs)",
        }
        raise RunError(
            f"{path} holds values made with {', '.join(what[name] for name in differs)}:"
            " run again as they were made to go on, or with --force to value the event"
            " again from the start (the values there are dropped)"
        )
    return sidecar


def _value(
    units: list[TableUnit],
    stored: Callable[[list[str]], dict[str, TableSessionResult]],
    sidecar: RolloutStore,
    rollouts: int,
    on_progress: Callable[[RolloutProgress], None] | None,
) -> RolloutProgress:
    valued = sidecar.unit_ids()
    progress = RolloutProgress(total=len(units))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dp-arena-rollouts-") as logs:
        # The copies' logs are nobody's record: they go to a folder dropped at the end.
        waiting = [
            dataclasses.replace(unit, log_dir=logs) for unit in units if unit_id(unit) not in valued
        ]
        progress.kept = progress.done = len(units) - len(waiting)
        if waiting:
            prepare_units(waiting)
        for unit in waiting:
            identifier = unit_id(unit)
            result = stored([identifier])[identifier]
            sidecar.put(identifier, unit, unit_values(unit, result, rollouts))
            progress.done += 1
            progress.rollouts += rollouts_of(result, rollouts)
            progress.seconds = time.perf_counter() - started
            if on_progress is not None:
                on_progress(progress)
    sidecar.set_meta("complete", "yes")
    return progress
