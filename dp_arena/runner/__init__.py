"""Running events: executors (serial, Ray), the checkpoint store, resume and progress.

::

    start_run(config, run_dir, ExecutorOptions("ray", workers=2))   # dp-arena run
    resume_run(run_dir)                                             # dp-arena resume

Every table unit a run finishes is committed to ``RUN_DIR/store.sqlite`` before the
event hears of it; a resume plays the (deterministic) event driver again and plays only
the units the store lacks, so it ends with the ``results.json`` of an uninterrupted
run. See ``docs/running.md``. Ray is imported only when a Ray executor starts.
"""

from __future__ import annotations

from dp_arena.rundir.store import RunStore
from dp_arena.runner.checkpoint import CheckpointExecutor
from dp_arena.runner.launch import (
    EXECUTORS,
    ExecutorOptions,
    RunOutcome,
    add_executor_arguments,
    executor_options,
    start_run,
)
from dp_arena.runner.resume import check_resumable, resume_run

__all__ = [
    "EXECUTORS",
    "CheckpointExecutor",
    "ExecutorOptions",
    "RunOutcome",
    "RunStore",
    "add_executor_arguments",
    "check_resumable",
    "executor_options",
    "resume_run",
    "start_run",
]
