"""The rollout values of a finished run, played and checked: one table-session's values
played by fresh copies of its bots (:func:`unit_values`, what ``dp-arena rollouts`` keeps),
and the ``rollouts`` check of ``dp-arena verify`` when the run directory holds a sidecar
(``rollouts.sqlite``): it was made for this ``results.json``, it names its rollouts, its
rollout scheme and its code version, every table-session of the store is valued, and
every deal's values are at the decisions drawn from a mix and only there, one row per
action of the mix, one exact value per seat in a row. With ``--replay`` the rollouts
are played again, and every value must come out the same (``rollouts replayed``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path

from dp_arena import rollouts as rollouts_module
from dp_arena.engine.mixes import Mix
from dp_arena.errors import RunError
from dp_arena.results import DealRecord, TableSessionResult, place_text
from dp_arena.rundir import RunDir
from dp_arena.rundir.rollouts import DealValues, RolloutStore, with_values
from dp_arena.runner.fingerprint import unit_id
from dp_arena.runner.verification import Verification
from dp_arena.units import TableUnit

__all__ = ["check_rollouts", "replay_rollouts", "rollouts_of", "unit_values"]


def unit_values(unit: TableUnit, result: TableSessionResult, rollouts: int) -> TableSessionResult:
    """``result`` of ``unit`` with its draws valued by ``rollouts`` rollouts, played by
    fresh copies of its bots opened as the run opened them and closed after
    (:func:`dp_arena.rollouts.unit_values`); a result that is not its unit's hands is the
    run's error, naming the table-session."""
    try:
        return rollouts_module.unit_values(unit, result, rollouts)
    except ValueError as error:
        where = place_text(unit.session, unit.section, unit.table)
        raise RunError(f"{where}: cannot be valued by rollouts: {error}") from None


def rollouts_of(result: TableSessionResult, rollouts: int) -> int:
    """The rollouts that value every draw of ``result``: ``rollouts`` per action of each
    mix."""
    return rollouts * sum(
        len(Mix.parse(text).actions) for record in result.deals for _, text in record.mixes
    )


def check_rollouts(
    verification: Verification,
    run_dir: Path,
    units: Sequence[TableUnit],
    stored: Callable[[list[str]], dict[str, TableSessionResult]],
) -> bool:
    """The ``rollouts`` check, when ``run_dir`` holds a sidecar (nothing otherwise, and
    ``False``); whether it passed."""
    if not RunDir(run_dir).rollouts.is_file():
        return False
    try:
        meta, found = _read(run_dir)
    except RunError as error:
        verification.add("rollouts", [str(error)], "")
        return False
    problems = _meta_problems(run_dir, meta)
    seat_counts = {unit_id(unit): unit.rules.seat_count for unit in units}
    for unit in units:
        identifier = unit_id(unit)
        where = f"{RunDir.ROLLOUTS}: {place_text(unit.session, unit.section, unit.table)}"
        if identifier not in found:
            if meta.get("complete") == "yes":
                problems.append(f"{where}: not valued")
            continue
        place, values = found[identifier]
        if place != unit.key:
            problems.append(f"{where}: recorded at session, section, table {place}")
        problems += _shape_problems(where, stored([identifier])[identifier], values, unit)
    problems += [
        f"{RunDir.ROLLOUTS}: session, section, table {place}: not a table-session of the run"
        for identifier, (place, _) in found.items()
        if identifier not in seat_counts
    ]
    complete = meta.get("complete") == "yes"
    verification.add(
        "rollouts",
        problems,
        f"{len(found):,} of {len(units):,} table-sessions valued by"
        f" {meta.get('rollouts', '?')} rollouts per action of every mix, one value per seat"
        " for each action, at the draws only"
        + ("" if complete else " (unfinished: the adjusted score does not use it yet)"),
    )
    return not problems


_Found = dict[str, tuple[tuple[int, int, int], tuple[DealValues, ...]]]


def _read(run_dir: Path) -> tuple[dict[str, str], _Found]:
    with RolloutStore.read(run_dir) as sidecar:
        meta = sidecar.meta()
        found = {identifier: (place, values) for place, identifier, values in sidecar.values()}
    return meta, found


def _meta_problems(run_dir: Path, meta: dict[str, str]) -> list[str]:
    problems = []
    rollouts = meta.get("rollouts", "")
    if not rollouts.isdigit() or int(rollouts) < 1:
        problems.append(f"{RunDir.ROLLOUTS}: meta 'rollouts' is {rollouts!r}, not a count")
    for name in ("rollout_version", "code_version"):
        if not meta.get(name):
            problems.append(f"{RunDir.ROLLOUTS}: meta {name!r} is not recorded")
    digest = hashlib.sha256(RunDir(run_dir).results.read_bytes()).hexdigest()
    if meta.get("results_sha256") != digest:
        problems.append(
            f"{RunDir.ROLLOUTS}: made for another results.json (SHA-256"
            f" {meta.get('results_sha256')!r}, this one's is {digest})"
        )
    return problems


def _shape_problems(
    where: str, result: TableSessionResult, values: Sequence[DealValues], unit: TableUnit
) -> list[str]:
    if len(values) != len(result.deals):
        return [f"{where}: values of {len(values)} deals, the store has {len(result.deals)}"]
    problems = []
    for record, deal_values in zip(result.deals, values, strict=True):
        problems += _deal_problems(f"{where}, deal {record.deal + 1}", record, deal_values, unit)
    return problems


def _deal_problems(
    where: str, record: DealRecord, values: DealValues, unit: TableUnit
) -> list[str]:
    mixes = dict(record.mixes)
    decisions = [decision for decision, _ in values]
    if decisions != [decision for decision, _ in record.mixes]:
        return [f"{where}: values at actions {decisions}, draws at {sorted(mixes)}"]
    for decision, rows in values:
        actions = len(Mix.parse(mixes[decision]).actions)
        if len(rows) != actions:
            return [f"{where}, action {decision + 1}: {len(rows)} rows for {actions} actions"]
        for row in rows:
            if len(row) != unit.rules.seat_count:
                seats = unit.rules.seat_count
                return [f"{where}, action {decision + 1}: {len(row)} values for {seats} seats"]
            try:
                for text in row:
                    Fraction(text)
            except (ValueError, ZeroDivisionError):
                return [f"{where}, action {decision + 1}: a value {row!r:.60} is no fraction"]
    return []


def replay_rollouts(
    verification: Verification,
    run_dir: Path,
    units: Sequence[TableUnit],
    stored: Callable[[list[str]], dict[str, TableSessionResult]],
) -> None:
    """``rollouts replayed``: the rollouts of every valued table-session among ``units``
    played again by fresh copies of its bots give the values the sidecar keeps (to be
    called once its ``rollouts`` check passed)."""
    meta, found = _read(run_dir)
    rollouts = int(meta["rollouts"])
    problems = []
    played = 0
    for unit in units:
        identifier = unit_id(unit)
        if identifier not in found:
            continue
        result = stored([identifier])[identifier]
        again = unit_values(unit, result, rollouts)
        played += rollouts_of(result, rollouts)
        kept = with_values(result, found[identifier][1], RunDir.ROLLOUTS)
        for record, record_again in zip(kept.deals, again.deals, strict=True):
            if record.values != record_again.values:
                here = place_text(unit.session, unit.section, unit.table, record.deal)
                problems.append(
                    f"{RunDir.ROLLOUTS}: {here}: the rollouts played again give other values"
                )
                break
    verification.add(
        "rollouts replayed",
        problems,
        f"{played:,} rollouts played again by fresh copies of the bots give the values kept",
    )
