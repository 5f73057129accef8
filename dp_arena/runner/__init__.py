"""Running events: executors (serial, Ray), the checkpoint store, resume and progress.

::

    start_run(config, run_dir, ExecutorOptions("ray", workers=2))   # dp-arena run
    resume_run(run_dir)                                             # dp-arena resume

Commands and the server start, resume and verify runs through one service
(:mod:`dp_arena.runner.service`), with the same preflight. Every table unit a run
finishes is committed to ``RUN_DIR/store.sqlite`` (:mod:`dp_arena.rundir`) before the
event hears of it; a resume plays the (deterministic) event driver again and plays only
the units the store lacks, so it ends with the ``results.json`` of an uninterrupted
run. See ``docs/running.md``. Ray is imported only when a Ray executor starts.
"""

from __future__ import annotations

from dp_arena.lazy import lazy_names
from dp_arena.rundir.store import RunStore
from dp_arena.runner.checkpoint import CheckpointExecutor
from dp_arena.runner.executors import EXECUTORS, ExecutorOptions
from dp_arena.runner.launch import RunOutcome, start_run
from dp_arena.runner.resume import check_resumable, resume_run

__all__ = [
    "EXECUTORS",
    "CheckpointExecutor",
    "ExecutorOptions",
    "RunOutcome",
    "RunStore",
    "check_resumable",
    "resume_run",
    "start_run",
]

# The command-line arguments of the executor moved to the command that reads them.
lazy_names(
    __name__,
    {},
    moved={
        "add_executor_arguments": "dp_arena.commands.arguments:add_executor_arguments",
        "executor_options": "dp_arena.commands.arguments:executor_options",
    },
)
