"""Starting and continuing runs: the checkpoint store, the executor, the progress
display and the event driver, put together.

:func:`start_run` makes the event's deck key (a new secret one unless the config names a
public seed) and writes it owner-only beside its commitment, creates the run
directory's store (recording the keyless config, the code version and every bot's
content hash), then plays the event through a
:class:`~dp_arena.runner.checkpoint.CheckpointExecutor` on the chosen executor
(:mod:`dp_arena.runner.executors`). :func:`continue_run` plays an event again over an
existing store: units already stored are answered from it, so only the missing ones are
played (see :mod:`dp_arena.runner.resume` for the checks before that). Commands and the
server start, resume and verify runs through :mod:`dp_arena.runner.service`.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from dp_arena import __version__
from dp_arena.errors import ConfigError, RunError
from dp_arena.files import write_atomic
from dp_arena.keys import EventKey
from dp_arena.rundir import RunDir, RunLock, refuse_if_running
from dp_arena.rundir.store import RunStore
from dp_arena.runner.checkpoint import CheckpointExecutor
from dp_arena.runner.executors import (
    EXECUTORS,
    ExecutorChoice,
    ExecutorOptions,
    choose_executor,
    make_executor,
    running,
)
from dp_arena.runner.fingerprint import (
    bot_codes,
    bot_fingerprints,
    canonical_json,
    code_version,
    config_to_json,
)
from dp_arena.runner.placement import SERIAL, Placement
from dp_arena.runner.progress import PlanTotals, RunLog, RunProgress, format_duration
from dp_arena.tournament.config import EventConfig, with_key
from dp_arena.tournament.event import EventRun, run_event
from dp_arena.tournament.formats import get_format

__all__ = [
    "COMMITMENT_FILE",
    "EXECUTORS",
    "KEY_FILE",
    "ExecutorChoice",
    "ExecutorOptions",
    "RunOutcome",
    "choose_executor",
    "continue_run",
    "event_key_for",
    "start_run",
]

KEY_FILE = RunDir.KEY  # the secret deck key, owner-only; revealed in results.json at the end
COMMITMENT_FILE = RunDir.COMMITMENT  # SHA-256 of the key, to publish before the event


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
        executor = make_executor(choice.options, layout.logs)
        with running(executor):
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
