"""Where a run's table units play: the executor options, the choice ``auto`` makes, the
serial executor as a run plays on it, and the executor a run's options name.

``ray`` runs units on an embedded Ray or a cluster (:mod:`dp_arena.runner.ray_executor`,
imported only when chosen), ``serial`` in this process; ``auto`` weighs the event's
size against an embedded Ray's start-up (:func:`choose_executor`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from dp_arena.errors import DPArenaError, RunError
from dp_arena.names import REGISTRY_PREFIX
from dp_arena.rundir.store import StoredResults, encode_result
from dp_arena.runner.checkpoint import JsonExecutor, ResultSink
from dp_arena.runner.placement import SERIAL, Placement
from dp_arena.runner.progress import PlanTotals
from dp_arena.tournament.config import Entrant, EventConfig
from dp_arena.units import SerialExecutor, TableUnit

__all__ = [
    "EXECUTORS",
    "EventExecutor",
    "ExecutorChoice",
    "ExecutorOptions",
    "SerialRun",
    "choose_executor",
    "make_executor",
    "running",
]

EXECUTORS = ("auto", "ray", "serial")
MAX_WORKERS = 10_000  # an embedded Ray starts a process for each

# What `auto` weighs, measured by `make bench-scale` on the project's 2-core machine
# (docs/scaling.md): the play of a table-deal in one process, for a field of each kind of
# bot (the built-ins measured one by one; any other in-process bot, whose cost nobody
# knows, at the default field's; a sandboxed one); an embedded Ray's start-up (the
# instance and its workers importing the engine); and how much of each added core a Ray
# worker turns into speed.
BUILTIN_DEAL_SECONDS = {
    "random": 0.0004,
    "calling-station": 0.0004,
    "aggressive": 0.0004,
    "tag": 0.0004,
    "equity": 0.0075,  # a Monte-Carlo equity estimate at each decision
}
TRUSTED_DEAL_SECONDS = 0.003
SANDBOXED_DEAL_SECONDS = 0.012
RAY_STARTUP_SECONDS = 6.0
RAY_EFFICIENCY = 0.85


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@dataclass(frozen=True, slots=True)
class ExecutorOptions:
    """Where table units run: ``ray`` (embedded, or the cluster at ``ray_address``),
    ``serial`` (in this process) or ``auto`` (:func:`choose_executor` decides). ``workers``:
    CPUs of an embedded Ray, or the most tasks in flight on a cluster. ``mirrors_apart``:
    on a cluster of several nodes, a bot's mirrored copies in a section play on different
    nodes (:mod:`dp_arena.runner.placement`); ``False`` lets Ray place the tables."""

    executor: str = "auto"
    workers: int | None = None
    ray_address: str | None = None
    mirrors_apart: bool = True  # on a cluster of several nodes (runner/placement.py)

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise RunError(
                f"--executor must be one of {', '.join(EXECUTORS)}, not {self.executor!r}"
            )
        if self.workers is not None and not 1 <= self.workers <= MAX_WORKERS:
            raise RunError(f"--workers must be from 1 to {MAX_WORKERS:_}, not {self.workers}")
        if self.ray_address is not None and self.executor == "serial":
            raise RunError("--ray-address needs --executor ray (or auto)")


@dataclass(frozen=True, slots=True)
class ExecutorChoice:
    """The executor a run uses, and why (``auto`` says what it weighed)."""

    options: ExecutorOptions
    reason: str


def choose_executor(
    options: ExecutorOptions, config: EventConfig, totals: PlanTotals, *, cores: int | None = None
) -> ExecutorChoice:
    """Where ``config``'s event runs. An explicit executor is kept; ``auto`` takes the
    cluster when an address is given, else an embedded Ray only when the play it could
    save on this machine's cores (the event's table-deals at the measured cost of its
    field's deals) is more than the embedded Ray's start-up, else serial."""
    if options.executor != "auto":
        return ExecutorChoice(options, f"--executor {options.executor}")
    if options.ray_address is not None:
        return ExecutorChoice(
            ExecutorOptions("ray", options.workers, options.ray_address, options.mirrors_apart),
            f"auto: a Ray cluster, given by --ray-address {options.ray_address}",
        )
    cores = options.workers or cores or _cores()
    costs = [_deal_seconds(entrant) for entrant in config.entrants]
    sandboxed = sum(1 for cost in costs if cost is None)
    share = sandboxed / max(1, len(config.entrants))
    # A table-deal costs what its seats' bots do: the field's mean, each entrant weighed alike.
    per_deal = sum(SANDBOXED_DEAL_SECONDS if cost is None else cost for cost in costs) / max(
        1, len(costs)
    )
    serial_seconds = totals.table_deals * per_deal
    field = (
        "an in-process"
        if not sandboxed
        else "a sandboxed"
        if share == 1
        else f"a {share:.0%} sandboxed"
    )
    speed_up = 1 + RAY_EFFICIENCY * (cores - 1)
    saved = serial_seconds * (1 - 1 / speed_up)
    weighed = (
        f"{totals.table_deals:,} table-deals of {field} field, about"
        f" {serial_seconds:,.1f} s of play in one process; {cores} cores could save about"
        f" {saved:,.1f} s against an embedded Ray's {RAY_STARTUP_SECONDS:g} s start-up"
    )
    if cores < 2 or saved <= RAY_STARTUP_SECONDS:
        return ExecutorChoice(ExecutorOptions("serial", None, None), f"auto: serial ({weighed})")
    return ExecutorChoice(
        ExecutorOptions("ray", options.workers, None, options.mirrors_apart),
        f"auto: embedded Ray ({weighed})",
    )


def _deal_seconds(entrant: Entrant) -> float | None:
    """What an entrant's bot adds to a table-deal played in one process, or ``None`` when
    its seats are sandboxed processes (not a built-in, nor a trusted Python bot)."""
    from dp_arena.agents.spec import SpecKind, parse_spec
    from dp_arena.sandbox import runs_in_process

    if entrant.spec.startswith(REGISTRY_PREFIX):
        return None
    try:
        spec = parse_spec(entrant.resolved)
    except DPArenaError:
        return None
    if spec.kind is SpecKind.BUILTIN:
        return BUILTIN_DEAL_SECONDS.get(spec.text, TRUSTED_DEAL_SECONDS)
    return TRUSTED_DEAL_SECONDS if runs_in_process(spec, entrant.trusted) else None


class EventExecutor(JsonExecutor, Protocol):
    """The executor a run plays its event on, with what the run reports of it:
    :class:`~dp_arena.runner.ray_executor.RayExecutor`, or :class:`SerialRun`."""

    @property
    def description(self) -> str:
        """Where the tables run, for the run's log and closing lines."""
        ...

    @property
    def startup_seconds(self) -> float:
        """How long :meth:`start` took."""
        ...

    @property
    def logs(self) -> Path | None:
        """The executor's own logs, copied into the run directory at the end."""
        ...

    @property
    def worker_peaks_kib(self) -> Mapping[str, int]:
        """Each worker's peak memory."""
        ...

    @property
    def copied_bots(self) -> Mapping[str, Set[str]]:
        """Each worker's bots seated from copies of the driver's files."""
        ...

    @property
    def placement(self) -> Placement:
        """How the tables were placed on machines (:mod:`dp_arena.runner.placement`)."""
        ...

    def start(self) -> None: ...

    def close(self) -> None: ...


class SerialRun(SerialExecutor, JsonExecutor):
    """The serial executor as a run plays on it: nothing to start, report or copy."""

    description = "serial (in this process)"
    startup_seconds = 0.0
    logs: Path | None = None

    @property
    def worker_peaks_kib(self) -> Mapping[str, int]:
        return {}

    @property
    def copied_bots(self) -> Mapping[str, Set[str]]:
        return {}

    @property
    def placement(self) -> Placement:
        return SERIAL

    def run_json(
        self,
        units: Sequence[TableUnit],
        on_result: ResultSink | None = None,
        *,
        histories: bool = False,
    ) -> Sequence[dict[str, Any]]:
        """The units played here one after the other, as a Ray worker plays a batch:
        results as JSON data, each with its hand history recorded as the hands finish
        (when ``histories``), so the driver need not replay them to write it, and its
        stored form; only the stored forms are kept (:class:`StoredResults`)."""
        from dp_arena.runner.worker import play_units

        answered = []
        for index, (data, text) in enumerate(play_units(units, histories=histories)):
            stored = encode_result(data)
            answered.append(stored)
            if on_result is not None:
                on_result(index, data, text, stored)
        return StoredResults(answered)

    def start(self) -> None:
        pass

    def close(self) -> None:
        pass


def make_executor(options: ExecutorOptions, log_dir: Path) -> EventExecutor:
    if options.executor == "serial":
        return SerialRun()
    from dp_arena.runner.ray_executor import RayExecutor

    return RayExecutor(
        address=options.ray_address,
        workers=options.workers,
        log_dir=log_dir,
        mirrors_apart=options.mirrors_apart,
    )


@contextlib.contextmanager
def running(executor: EventExecutor) -> Iterator[EventExecutor]:
    executor.start()
    try:
        yield executor
    finally:
        executor.close()
