"""The layout of a run directory: where each of its files lives, and how to read them.

A run directory is what ``dp-arena run`` writes and ``resume``, ``verify``, the ratings
and the published pages read. :class:`RunDir` is the one place that knows its layout, as
:class:`importlib.metadata.Distribution` knows a ``.dist-info`` folder; every other
module asks it for a path rather than spelling out a file's name::

    RUN_DIR/
      results.json        the summary: plan, standings, prizes, the revealed key, digest
      summary.txt         the same for people
      timing.json         when the event started and finished
      runner.json         how the run ran (executor, start-up, memory)
      run.log             what the runner did, line by line
      store.sqlite        the checkpoint store: every finished table unit
      rollouts.sqlite     rollout values of the mixes' draws, made after the event
      run.lock            held while a run or a resume writes the directory
      key, commitment     the secret deck key (owner-only) and its SHA-256
      ledger.sqlite       a Quick Play event's money
      sessions/           one part per session (session-N.jsonl)
      histories/          the hand histories (PHHS)
      logs/PLAYER/        each sandboxed bot's logs, and its faults.json

>>> run = RunDir("runs/cup")
>>> run.results.as_posix(), run.session_part(2).as_posix()
('runs/cup/results.json', 'runs/cup/sessions/session-2.jsonl')
>>> RunDir.of_logs(run.logs) == run
True
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from dp_arena.errors import RunError

__all__ = ["RunDir"]


class RunDir:
    """One run directory (which need not exist yet): the paths of its files, and the
    readers of those that other parts read."""

    RESULTS = "results.json"
    SUMMARY = "summary.txt"
    TIMING = "timing.json"
    RUNNER = "runner.json"
    LOG = "run.log"
    STORE = "store.sqlite"
    ROLLOUTS = "rollouts.sqlite"
    LOCK = "run.lock"
    KEY = "key"
    COMMITMENT = "commitment"
    LEDGER = "ledger.sqlite"
    SESSIONS = "sessions"
    HISTORIES = "histories"
    LOGS = "logs"
    FAULTS = "faults.json"

    __slots__ = ("path",)

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    @classmethod
    def of_logs(cls, log_dir: str | os.PathLike[str]) -> RunDir:
        """The run directory whose bots' log folder is ``log_dir``."""
        return cls(Path(log_dir).parent)

    def __repr__(self) -> str:
        return f"RunDir({str(self.path)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunDir) and other.path == self.path

    def __hash__(self) -> int:
        return hash(self.path)

    def __fspath__(self) -> str:
        return os.fspath(self.path)

    # -- where each file lives -----------------------------------------------------------

    @property
    def results(self) -> Path:
        return self.path / self.RESULTS

    @property
    def summary(self) -> Path:
        return self.path / self.SUMMARY

    @property
    def timing(self) -> Path:
        return self.path / self.TIMING

    @property
    def runner(self) -> Path:
        return self.path / self.RUNNER

    @property
    def log(self) -> Path:
        return self.path / self.LOG

    @property
    def store(self) -> Path:
        return self.path / self.STORE

    @property
    def rollouts(self) -> Path:
        return self.path / self.ROLLOUTS

    @property
    def lock(self) -> Path:
        return self.path / self.LOCK

    @property
    def key(self) -> Path:
        return self.path / self.KEY

    @property
    def commitment(self) -> Path:
        return self.path / self.COMMITMENT

    @property
    def ledger(self) -> Path:
        return self.path / self.LEDGER

    @property
    def sessions(self) -> Path:
        return self.path / self.SESSIONS

    @property
    def histories(self) -> Path:
        return self.path / self.HISTORIES

    @property
    def logs(self) -> Path:
        return self.path / self.LOGS

    @classmethod
    def session_part_name(cls, session: int) -> str:
        """The name ``results.json`` gives the part that holds session ``session``."""
        return f"{cls.SESSIONS}/session-{session}.jsonl"

    @classmethod
    def history_name(cls, session: int, section: int, table: int) -> str:
        """The name ``results.json`` gives the hand history of one table of a session.

        >>> RunDir.history_name(1, 2, 13)
        'histories/s01-x02-t13.phhs'
        """
        return f"{cls.HISTORIES}/s{session:02d}-x{section:02d}-t{table:02d}.phhs"

    def session_part(self, session: int) -> Path:
        """The part of ``results.json`` that holds session ``session``'s outcome."""
        return self.path / self.session_part_name(session)

    def bot_logs(self, player: str) -> Path:
        """The folder of ``player``'s logs (its sandboxed seats' and its faults)."""
        return self.logs / player

    def faults(self, player: str) -> Path:
        return self.bot_logs(player) / self.FAULTS

    def file(self, name: str) -> Path:
        """A file ``results.json`` names, relative to the directory."""
        return self.path / name

    def written_folders(self) -> tuple[Path, ...]:
        """The folders the event writes its files into atomically (where a killed run may
        leave half-written temporary files)."""
        return (self.path, self.histories, self.sessions)

    # -- readers ---------------------------------------------------------------------------

    def is_finished(self) -> bool:
        """Whether the run ended: its ``results.json`` is written last."""
        return self.results.is_file()

    def read_results(self) -> dict[str, Any]:
        """``results.json``'s data; :class:`RunError` naming the file when the directory
        holds no finished run or the file is not a run's results."""
        path = self.results
        if not path.is_file():
            raise RunError(f"{self.path} has no {self.RESULTS}: it does not hold a finished run")
        data = self.read_json(self.RESULTS)
        if not isinstance(data, dict) or not isinstance(data.get("event"), dict):
            raise RunError(f"{path}: not the results of a run (no event)")
        return data

    def read_json(self, name: str) -> Any:
        """The JSON of the file ``name``; :class:`RunError` naming it when it cannot be
        read or parsed."""
        path = self.file(name)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise RunError(f"{path}: cannot be read: {error.strerror or error}") from None
        except (UnicodeDecodeError, ValueError, RecursionError) as error:
            raise RunError(
                f"{path}: cannot be read as JSON ({error or 'nested too deeply'})"
            ) from None

    def finished_at(self) -> str | None:
        """When the event finished, as ``timing.json`` says (``None`` when it cannot say:
        the file only orders events)."""
        try:
            timing = json.loads(self.timing.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
        finished = timing.get("finished") if isinstance(timing, dict) else None
        return finished if isinstance(finished, str) else None
