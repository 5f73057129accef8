"""Resuming a run that was interrupted: check that nothing it depends on has changed,
then play it again over its store.

A run can be resumed when its store holds a config, and

- the code version (the hash of the ``dp_arena`` source) is the one that started it;
- the config file it was started from, if it is still there, still says the same
  (compared as validated config, so comments and spacing may change);
- every bot's content hash is the one recorded at the start.

Otherwise :func:`check_resumable` raises one :class:`~dp_arena.errors.RunError` that
lists every difference: results of two versions of a bot or of the engine must never
be mixed in one event.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any

from dp_arena.errors import ConfigError, RunError
from dp_arena.rundir import RunDir, RunStore
from dp_arena.runner.fingerprint import (
    bot_fingerprints,
    code_version,
    config_from_json,
    config_to_json,
)
from dp_arena.runner.launch import ExecutorOptions, RunOutcome, continue_run, run_key
from dp_arena.tournament.config import EventConfig, with_key
from dp_arena.tournament.loading import load_config

__all__ = ["check_resumable", "is_finished", "remove_partial_files", "resume_run"]


def is_finished(run_dir: Path) -> bool:
    return RunDir(run_dir).is_finished()


def _changed_fields(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    keys = sorted(set(before) | set(after))
    # Which entrants were left absent is decided when the run starts, not by the file.
    return [
        key for key in keys if key not in ("source", "absent") and before.get(key) != after.get(key)
    ]


def check_resumable(run_dir: Path, store: RunStore) -> EventConfig:
    """The stored config of ``run_dir``, once every check passes; :class:`RunError`
    listing every problem otherwise."""
    meta = store.meta()
    if "config" not in meta:
        raise RunError(f"{run_dir}: the store holds no config; it cannot be resumed")
    stored_config = store.meta_json("config")
    try:
        config = config_from_json(stored_config)
    except RunError as error:
        raise RunError(f"{store.path}: {error}") from None
    problems: list[str] = []

    now = code_version()
    if meta.get("code_version") != now:
        problems.append(
            f"the dp-arena source changed since the run started (code version"
            f" {meta.get('code_version', '?')[:12]} then, {now[:12]} now): resume with the"
            " code that started it, or start a new run"
        )

    config_path = meta.get("config_path") or ""
    if config_path and Path(config_path).is_file():
        try:
            current = config_to_json(load_config(config_path))
        except ConfigError as error:
            problems.append(f"the config {config_path} no longer loads: {error}")
        else:
            changed = _changed_fields(stored_config, current)
            if changed:
                problems.append(
                    f"the config {config_path} changed since the run started"
                    f" (different: {', '.join(changed)}); put it back, or start a new run"
                )

    recorded = store.meta_json("bots", {})
    if not isinstance(recorded, dict):
        raise RunError(f"{store.path}: the stored bot hashes are damaged")
    current_bots = bot_fingerprints(config.entrants)
    for spec, fingerprint in sorted(recorded.items()):
        if current_bots.get(spec) != fingerprint:
            players = [entrant.player for entrant in config.entrants if entrant.resolved == spec]
            shown = ", ".join(players[:3]) + (
                f" and {len(players) - 3} more" if len(players) > 3 else ""
            )
            what = (
                "cannot be found"
                if current_bots.get(spec, "").startswith("missing:")
                else "changed"
            )
            problems.append(f"the bot {spec} (played by {shown}) {what} since the run started")

    if problems:
        listed = "\n".join(f"  - {problem}" for problem in problems)
        raise RunError(f"cannot resume {run_dir}:\n{listed}")
    # The same key as at the start: the stored config is keyless.
    return with_key(config, run_key(run_dir, store, config))


def remove_partial_files(run_dir: Path) -> int:
    """Delete temporary files a killed run left half-written (``.NAME.*.tmp``, made by
    atomic writes); the number removed."""
    removed = 0
    for folder in RunDir(run_dir).written_folders():
        if folder.is_dir():
            for path in folder.glob(".*.tmp"):
                path.unlink(missing_ok=True)
                removed += 1
    return removed


def resume_run(
    run_dir: Path,
    options: ExecutorOptions | None = None,
    *,
    quiet: bool = False,
    stream: IO[str] | None = None,
) -> RunOutcome:
    """Continue the interrupted run in ``run_dir`` to the end, as it was started (with or
    without hand histories)."""
    if is_finished(run_dir):
        raise RunError(f"{run_dir} has finished ({RunDir.RESULTS} is there); nothing to resume")
    store = RunStore.open(run_dir)
    try:
        config = check_resumable(run_dir, store)
    except BaseException:
        store.close()
        raise
    from dp_arena.runner.progress import RunLog

    histories = store.meta().get("histories", "yes") == "yes"
    removed = remove_partial_files(run_dir)
    RunLog(RunDir(run_dir).log).write(
        f"resumed with {store.count()} table-sessions in the store"
        + (f"; removed {removed} half-written files" if removed else "")
    )
    return continue_run(
        config, run_dir, store, options, quiet=quiet, histories=histories, stream=stream
    )
