"""Starting and continuing runs: the executor options, the checkpoint store, the progress
display and the event driver, put together.

:func:`start_run` makes the event's deck key (a new secret one unless the config names a
public seed) and writes it owner-only beside its commitment, creates the run
directory's store (recording the keyless config, the code version and every bot's
content hash), then plays the event through a
:class:`~dp_arena.runner.checkpoint.CheckpointExecutor` on the chosen executor.
:func:`continue_run` plays an event again over an existing store: units already stored
are answered from it, so only the missing ones are played (see
:mod:`dp_arena.runner.resume` for the checks before that).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import sys
import time
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

from dp_arena import __version__
from dp_arena.errors import ConfigError, DPArenaError, RunError
from dp_arena.files import write_atomic
from dp_arena.keys import EventKey
from dp_arena.rundir import RunDir, RunLock, refuse_if_running
from dp_arena.rundir.store import RunStore, StoredResults, encode_result
from dp_arena.runner.checkpoint import CheckpointExecutor, JsonExecutor, ResultSink
from dp_arena.runner.fingerprint import (
    bot_codes,
    bot_fingerprints,
    canonical_json,
    code_version,
    config_to_json,
)
from dp_arena.runner.placement import SERIAL, Placement
from dp_arena.runner.progress import PlanTotals, RunLog, RunProgress, format_duration
from dp_arena.tournament.config import Entrant, EventConfig, with_key
from dp_arena.tournament.event import EventRun, run_event
from dp_arena.tournament.formats import get_format
from dp_arena.tournament.units import SerialExecutor, TableUnit

__all__ = [
    "COMMITMENT_FILE",
    "EXECUTORS",
    "KEY_FILE",
    "ExecutorChoice",
    "ExecutorOptions",
    "RunOutcome",
    "add_executor_arguments",
    "choose_executor",
    "continue_run",
    "executor_options",
    "start_run",
]

EXECUTORS = ("auto", "ray", "serial")
KEY_FILE = RunDir.KEY  # the secret deck key, owner-only; revealed in results.json at the end
COMMITMENT_FILE = RunDir.COMMITMENT  # SHA-256 of the key, to publish before the event
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


def add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    """``--executor``, ``--workers`` and ``--ray-address`` (for ``run`` and ``resume``)."""
    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
        default="auto",
        help="where table-sessions run: auto (default: the cluster of --ray-address if"
        " given, else serial or an embedded Ray, whichever the event's size pays for),"
        " ray (an embedded local Ray, or the cluster of --ray-address) or serial (in"
        " this process)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="embedded Ray: worker processes (default: this machine's cores);"
        " on a cluster: the most tasks in flight (default: the cluster's CPUs)",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="join an existing Ray cluster: auto (RAY_ADDRESS or the cluster started"
        " on this machine), HOST:PORT of its head, or ray://HOST:PORT (Ray Client)",
    )
    parser.add_argument(
        "--mirrors-apart",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="on a Ray cluster of several nodes, play the copies of a bot in one section"
        " on different nodes (default); --no-mirrors-apart lets Ray place the tables",
    )


def executor_options(args: argparse.Namespace) -> ExecutorOptions:
    return ExecutorOptions(args.executor, args.workers, args.ray_address, args.mirrors_apart)


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """A finished run and how it ran (none of this is in ``results.json``)."""

    event: EventRun
    executor: str
    startup_seconds: float
    units_played: int
    units_from_store: int
    deals_played: int
    deals_from_store: int
    seconds: float
    driver_peak_kib: int
    driver_cpu_seconds: float = 0.0
    worker_peaks_kib: dict[str, int] = field(default_factory=dict)
    executor_choice: str = ""
    # Ray worker ("host:pid") -> the bots it seated from copies sent through Ray (its
    # node lacked their files at the driver's paths).
    copied_bots: dict[str, list[str]] = field(default_factory=dict)
    placement: Placement = SERIAL
    absent: int = 0  # entrants that did not load and sat out as absent players

    @property
    def deals_per_second(self) -> float | None:
        return self.deals_played / self.seconds if self.seconds > 0 and self.deals_played else None

    def report(self) -> str:
        """The closing lines of a run, for people."""
        rate = self.deals_per_second
        if not self.units_played and not self.units_from_store:
            # A classic freezeout's tables are coupled hand by hand (balancing, breaking):
            # it plays in this process and sends nothing to the executor.
            hands = self.event.result.hands_played
            played = f"{hands:,} table-hands" if hands is not None else "the event"
            return (
                f"{played} played in this process in {format_duration(self.seconds)}"
                " (this format's tables are coupled hand by hand, so it does not use the executor)"
            )
        plan = self.event.plan
        table_deals = self.deals_played + self.deals_from_store
        absent = f", {self.absent:,} of them absent (did not load)" if self.absent else ""
        deals = f"{plan.deals:,} deal{'s' * (plan.deals != 1)} ({table_deals:,} table-deals)"
        lines = [
            f"the event: {plan.entrants:,} entrants{absent}, {deals}",
            f"{self.deals_played:,} table-deals played in {format_duration(self.seconds)}"
            + (f" ({rate:,.0f} table-deals/s)" if rate else "")
            + f" on {self.executor}"
            + (
                f" after a {self.startup_seconds:.1f} s start-up"
                if self.startup_seconds >= 0.05
                else ""
            ),
        ]
        if self.executor_choice.startswith("auto"):
            lines.append(f"executor {self.executor_choice}")
        lines.append(f"placement: {self.placement.describe()}")
        if self.units_from_store:
            lines.append(
                f"{self.units_from_store:,} table-sessions ({self.deals_from_store:,} deals)"
                " came from the checkpoint store"
            )
        return "\n".join(lines)


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

    if entrant.spec.startswith("registry:"):
        return None
    try:
        spec = parse_spec(entrant.resolved)
    except DPArenaError:
        return None
    if spec.kind is SpecKind.BUILTIN:
        return BUILTIN_DEAL_SECONDS.get(spec.text, TRUSTED_DEAL_SECONDS)
    return TRUSTED_DEAL_SECONDS if entrant.trusted and spec.is_python else None


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


def _executor(options: ExecutorOptions, log_dir: Path) -> EventExecutor:
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
def _running(executor: EventExecutor) -> Iterator[EventExecutor]:
    executor.start()
    try:
        yield executor
    finally:
        executor.close()


def _check_fresh(run_dir: Path) -> None:
    refuse_if_running(run_dir)
    if RunDir(run_dir).is_finished():
        raise RunError(
            f"{run_dir} already holds a finished run ({RunDir.RESULTS}); choose another --run-dir"
        )


def event_key_for(config: EventConfig, key: EventKey | None = None) -> EventKey:
    """The key a run of ``config`` deals from: the config's own (a public seed, or a key
    already bound), else ``key``, else a new secret one."""
    if config.seed is not None:
        return config.event_key
    return key if key is not None else EventKey.secret()


def start_run(
    config: EventConfig,
    run_dir: Path,
    options: ExecutorOptions | None = None,
    *,
    quiet: bool = False,
    histories: bool = True,
    stream: IO[str] | None = None,
    key: EventKey | None = None,
) -> RunOutcome:
    """Start ``config`` in the new run directory ``run_dir`` and play it to the end, with
    the deck key :func:`event_key_for` gives."""
    _check_fresh(run_dir)
    options = options or ExecutorOptions()
    if options.ray_address is not None:
        # Before anything is written: a wrong address should not leave a run behind.
        from dp_arena.runner.ray_executor import check_address

        check_address(options.ray_address)
    if RunStore.path_in(run_dir).exists():
        raise RunError(
            f"{run_dir} already holds a run that did not finish; continue it with"
            f" `dp-arena resume {run_dir}` or choose another --run-dir"
        )
    key = event_key_for(config, key)
    config = with_key(config, key)
    try:  # a plan that needs the key's draws is checked before anything is written
        get_format(config.format).plan(config)
    except ConfigError as error:
        raise RunError(f"the event cannot be planned: {error}") from None
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        # The directory holds the key and, while the event runs, hands no bot may see.
        run_dir.chmod(0o700)
    except OSError as error:
        raise RunError(
            f"cannot create the run directory {run_dir}: {error.strerror or error}"
        ) from None
    try:
        config_text = canonical_json(config_to_json(config))
    except (TypeError, ValueError) as error:
        raise RunError(f"the config cannot be stored as JSON: {error}") from None
    fingerprints = bot_fingerprints(config.entrants)
    meta = {
        "config": config_text,
        "config_path": str(Path(config.source).resolve()) if config.source else "",
        "code_version": code_version(),
        "bots": canonical_json(fingerprints),
        # Each entrant's code as results.json names it: recorded now, so that a resume
        # and a verification write the same, whatever happens to the files later.
        "code": canonical_json(bot_codes(config.entrants, fingerprints)),
        "dp_arena_version": __version__,
        # Whether hand histories are written changes results.json (it lists them).
        "histories": "yes" if histories else "no",
        "commitment": key.commitment,
        "key": "public" if key.public else "secret",
    }
    lock = RunLock.acquire(run_dir)  # one start writes the key: two may race to here
    try:
        if RunStore.path_in(run_dir).exists():
            raise RunError(f"{run_dir} was started by another process meanwhile")
        if not key.public:
            key.write(RunDir(run_dir).key)
        _write_commitment(run_dir, key)
        store = RunStore.create(run_dir, meta, lock=lock)
    except BaseException:
        lock.release()
        raise
    RunLog(RunDir(run_dir).log).write(
        f"started {config.name!r} ({config.format}, {len(config.entrants)} entrants);"
        f" code version {meta['code_version'][:12]}; {key.describe()}"
    )
    return continue_run(
        config, run_dir, store, options, quiet=quiet, histories=histories, stream=stream
    )


def _write_commitment(run_dir: Path, key: EventKey) -> None:
    write_atomic(RunDir(run_dir).commitment, key.commitment + "\n")


def run_key(run_dir: Path, store: RunStore, config: EventConfig) -> EventKey:
    """The key a run directory was started with, checked against its commitment."""
    meta = store.meta()
    key_file = RunDir(run_dir).key
    key = config.event_key if config.seed is not None else EventKey.read(key_file)
    recorded = meta.get("commitment")
    if recorded is not None and recorded != key.commitment:
        raise RunError(
            f"{key_file}: the key does not match the commitment the run started"
            f" with ({recorded[:16]}...): it was changed, and the run cannot go on"
        )
    return key


def continue_run(
    config: EventConfig,
    run_dir: Path,
    store: RunStore,
    options: ExecutorOptions | None = None,
    *,
    quiet: bool = False,
    histories: bool = True,
    stream: IO[str] | None = None,
) -> RunOutcome:
    """Play ``config`` over ``store`` to the end (``store`` is closed afterwards)."""
    options = options or ExecutorOptions()
    layout = RunDir(run_dir)
    log = RunLog(layout.log)
    try:
        totals = PlanTotals.of(get_format(config.format).plan(config))
        progress = RunProgress(totals, stream=stream, live=not quiet)
        choice = choose_executor(options, config, totals)
        log.write(f"executor chosen: {choice.reason}")
        if not quiet and choice.reason.startswith("auto"):
            print(f"executor {choice.reason}", file=stream or sys.stderr, flush=True)
        executor = _executor(choice.options, layout.logs)
        with _running(executor):
            description = executor.description
            startup = executor.startup_seconds
            log.write(
                f"executor: {description}" + (f", started in {startup:.1f} s" if startup else "")
            )
            ray_logs = executor.logs
            if ray_logs is not None:
                log.write(f"Ray's logs: {ray_logs} (copied to logs/ray at the end)")
            checkpoint = CheckpointExecutor(
                executor, store, progress=progress, log=log, histories=histories
            )
            started = time.perf_counter()
            cpu_started = time.process_time()
            try:
                event = run_event(
                    config,
                    run_dir,
                    executor=checkpoint,
                    histories=histories,
                    code=stored_code(store),
                    written_histories=checkpoint.history_of,
                )
            except BaseException as error:
                log.write(f"stopped: {type(error).__name__}: {error}")
                raise
            finally:
                progress.finish()
            seconds = time.perf_counter() - started
            cpu_seconds = time.process_time() - cpu_started
            worker_peaks = dict(executor.worker_peaks_kib)
            copied = {worker: sorted(specs) for worker, specs in executor.copied_bots.items()}
            placement = executor.placement
        store.checkpoint()
    finally:
        store.close()
    outcome = RunOutcome(
        event=event,
        executor=description,
        executor_choice=choice.reason,
        startup_seconds=startup,
        units_played=checkpoint.units_played,
        units_from_store=checkpoint.units_from_store,
        deals_played=progress.deals_played,
        deals_from_store=progress.deals_stored,
        seconds=seconds,
        driver_peak_kib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        driver_cpu_seconds=cpu_seconds,
        worker_peaks_kib=worker_peaks,
        copied_bots=copied,
        placement=placement,
        absent=len(config.absent),
    )
    log.write(outcome.report())
    log.write("finished: results.json written")
    _write_runner_figures(run_dir, outcome)
    return outcome


def stored_code(store: RunStore) -> dict[str, dict[str, object]] | None:
    """The entrants' code objects recorded when the run started (``None`` for a run
    started before they were recorded: results.json then names the code without hashes)."""
    text = store.meta().get("code")
    return None if text is None else dict(json.loads(text))


def _write_runner_figures(run_dir: Path, outcome: RunOutcome) -> None:
    """``runner.json``: how the run ran (executor, start-up, memory), beside timing.json."""
    figures = {
        "executor": outcome.executor,
        "executor_choice": outcome.executor_choice,
        "startup_seconds": round(outcome.startup_seconds, 3),
        "seconds": round(outcome.seconds, 3),
        "units_played": outcome.units_played,
        "units_from_store": outcome.units_from_store,
        "deals_played": outcome.deals_played,
        "deals_from_store": outcome.deals_from_store,
        "deals_per_second": round(outcome.deals_per_second, 1)
        if outcome.deals_per_second
        else None,
        "driver_peak_rss_kib": outcome.driver_peak_kib,
        "driver_cpu_seconds": round(outcome.driver_cpu_seconds, 3),
        "worker_peak_rss_kib": dict(sorted(outcome.worker_peaks_kib.items())),
        "bots_copied_to_workers": dict(sorted(outcome.copied_bots.items())),
        "placement": outcome.placement.to_json(),
    }
    write_atomic(RunDir(run_dir).runner, json.dumps(figures, indent=2, sort_keys=True) + "\n")
