"""Running a whole event into a run directory.

::

    RUN_DIR/
      results.json          the summary: the plan, standings, prizes, each entrant's totals,
                            faults, and an index of the sessions' parts (docs/results.md);
                            byte-identical for the same config and seed; the key and the
                            results digest (:mod:`dp_arena.tournament.digest`) revealed
      sessions/session-N.jsonl  each session's part, as soon as it is played: its
                            sections or mini-matches and their tables, one record a line
      histories/sS-xX-tT.phhs  hand histories (PHH), one file per table-session
      logs/PLAYER/          sandboxed bots' logs, and faults.json with the bot's faults
      summary.txt           the human-readable summary
      timing.json           wall time and deals per second (kept out of results.json)

Every file is written atomically (:func:`dp_arena.files.write_atomic`: a temporary file,
then a rename).
"""

from __future__ import annotations

import functools
import gc
import hashlib
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dp_arena.errors import RunError
from dp_arena.files import BackgroundWriter, write_atomic
from dp_arena.ratings.clairvoyance import Clairvoyance
from dp_arena.results import TableSessionResult
from dp_arena.rundir import RunDir
from dp_arena.tournament.clairvoyance import (
    EventClairvoyance,
    clairvoyance_summary,
    tested_players,
)
from dp_arena.tournament.code import entrant_code
from dp_arena.tournament.config import Entrant, EventConfig, EventSettings
from dp_arena.tournament.describe import SCREEN_PLACES, describe_result
from dp_arena.tournament.digest import DIGEST_FIELD, file_sha256, results_digest
from dp_arena.tournament.documents import (
    entrant_totals,
    plain,
    session_from_records,
    session_part_lines,
    summary_pieces,
)
from dp_arena.tournament.formats import get_format
from dp_arena.tournament.interface import EventFormat, Runtime
from dp_arena.tournament.outcomes import EventResult, RoundRobinOutcome, SessionOutcome
from dp_arena.tournament.plan import EventPlan
from dp_arena.units import Executor, SerialExecutor, TableUnit
from dp_arena.units.histories import session_history_text

__all__ = [
    "RESULTS_VERSION",
    "EventRun",
    "default_run_dir",
    "results_document",
    "run_event",
]

RESULTS_VERSION = 2


def _dump(data: Any) -> str:
    return json.dumps(plain(data), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def default_run_dir(config: EventConfig, root: Path = Path("runs")) -> Path:
    """A new folder under ``runs/``, named by the event and the time it starts."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", config.name).strip("-").lower() or "event"
    stem = root / f"{slug}-{time.strftime('%Y%m%d-%H%M%S')}"
    candidate, number = stem, 2
    while candidate.exists():
        candidate = stem.with_name(f"{stem.name}-{number}")
        number += 1
    return candidate


class _RunDirObserver:
    """Writes hand histories and each session's part as the event runs."""

    def __init__(
        self,
        run_dir: Path,
        histories: bool,
        written: Callable[[TableUnit], str | None] | None = None,
        tested: frozenset[str] = frozenset(),
    ) -> None:
        self.run_dir = run_dir
        self.histories = histories
        self.written = written
        self.history_files: list[str] = []
        self.parts: list[dict[str, Any]] = []  # the summary's index of the sessions' parts
        self.deals_played = 0
        self.writer = BackgroundWriter()
        self.clairvoyance = EventClairvoyance(tested)
        self._unwritten: SessionOutcome | RoundRobinOutcome | None = None
        # Only when nothing else froze the collector's objects (undone when the run ends).
        self.freeze = gc.get_freeze_count() == 0

    def units_started(self, label: str, units: list[TableUnit]) -> None:
        return None

    def unit_finished(self, unit: TableUnit, result: TableSessionResult) -> None:
        self.write_part()  # the session before's: its successor is under way by now
        self.deals_played += len(result.deals)
        self.clairvoyance.unit_finished(unit, result)
        if self.histories:
            name = RunDir.history_name(unit.session, unit.section, unit.table)
            text = self.written(unit) if self.written is not None else None
            if text is None:  # not written where it was played: written here
                text = session_history_text(unit, result)
            self.writer.write(self.run_dir / name, text)
            self.history_files.append(name)
        self._settle()

    def session_finished(self, outcome: SessionOutcome | RoundRobinOutcome) -> None:
        """Keep the session's outcome for its part, written once the next session's first
        table is in (:meth:`write_part`): by then the executor has the next session's
        tables, so on Ray the workers play while the part is written instead of waiting
        for it. The driver's peak memory stays as it was: the outcome is
        held beside the next session's table units, no more than it was held beside its
        own session's at that session's end (a 20,000-bot event: 187 MiB either way)."""
        self.write_part()
        self.clairvoyance.session_finished()
        self._unwritten = outcome
        self._settle()

    def _settle(self) -> None:
        """Take what the driver holds now out of the cyclic collector's passes. It holds
        its data until the session ends or the event does, and frees it by reference
        counting as it drops it (it makes no cycles: a 20,000-bot event's passes find
        about 2,000 objects to collect in all, nearly all at start-up), so walking it
        again and again finds nothing; at 100,000 entrants those walks cost the driver
        over 5 s of CPU, many of them between sessions. Freezing is a constant-time move."""
        if self.freeze:
            gc.freeze()

    def sha256_of(self, name: str) -> str:
        """The SHA-256 of a file of the run directory ``results.json`` names: a session's
        part or a hand history as it was written here, else (a classic freezeout's own
        histories) read back."""
        for part in self.parts:
            if part["part"] == name:
                return str(part["sha256"])
        written = self.writer.sha256.get(self.run_dir / name)
        return written if written is not None else file_sha256(self.run_dir / name)

    def write_part(self) -> None:
        """Write the part of the session kept by :meth:`session_finished`, if one is."""
        outcome, self._unwritten = self._unwritten, None
        if outcome is None:
            return
        name = RunDir.session_part_name(outcome.session)
        digest = hashlib.sha256()
        records = 0

        def lines() -> Iterator[bytes]:  # written a table at a time, and digested
            nonlocal records
            for line in session_part_lines(outcome):
                data = line.encode("utf-8")
                digest.update(data)
                records += 1
                yield data

        write_atomic(self.run_dir / name, lines())
        self.parts.append(
            {
                "session": outcome.session,
                "kind": outcome.kind,
                "part": name,
                "records": records,
                "sha256": digest.hexdigest(),
            }
        )


def results_document(
    config: EventConfig,
    event_format: EventFormat,
    plan: EventPlan,
    result: EventResult,
    histories: list[str],
    code: Mapping[str, Mapping[str, Any]] | None = None,
    parts: Sequence[Mapping[str, Any]] = (),
    clairvoyance: Mapping[str, Clairvoyance] | None = None,
) -> dict[str, Any]:
    """The content of ``results.json`` (see ``docs/results.md``); ``code`` is each
    player's code object as the run recorded it at the start (by default each is named
    from its spec, without a content hash); ``parts`` indexes the sessions' parts;
    ``clairvoyance`` each player's clairvoyance test (``None``: not computed, as for a
    format played outside table units)."""
    settings = EventSettings.resolve(config, event_format.defaults)
    code = code or {}
    prizes = {standing.player: standing.prize_cents for standing in result.standings}
    absent = dict(config.absent)
    return {
        "results_version": RESULTS_VERSION,
        "event": {
            "name": config.name,
            "format": config.format,
            "title": event_format.title,
            # The reveal: the key every deck came from, and the commitment made before.
            **config.event_key.reveal(),
        },
        "settings": {
            **plain(settings),
            "deals": {str(seats): deals for seats, deals in settings.deals},
            "max_faults": config.max_faults,
            "limits": dict(config.limits),
            "options": dict(config.options),
        },
        "entrants": [
            _entrant_json(
                entrant,
                absent,
                code.get(entrant.player),
                None if clairvoyance is None else clairvoyance.get(entrant.player),
            )
            for entrant in config.entrants
        ],
        "plan": plan.to_json(),
        "sessions": list(parts),
        "standings": list(result.standings),
        "totals": (
            result.totals.rows()
            if result.totals is not None
            else entrant_totals([entrant.player for entrant in config.entrants], result.sessions)
        ),
        "prizes": {
            "pool_cents": plan.prizes.pool_cents,
            "fees_cents": plan.prizes.fee_cents * plan.entrants,
            "paid_cents": sum(prizes.values()),
            "by_player": prizes,
        },
        "faults": list(result.faults),
        "clairvoyance": None if clairvoyance is None else clairvoyance_summary(clairvoyance),
        **({} if result.details is None else {"details": result.details}),
        "histories": sorted(histories),
    }


def _entrant_json(
    entrant: Entrant,
    absent: dict[str, str],
    code: Mapping[str, Any] | None,
    clairvoyance: Clairvoyance | None,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "player": entrant.player,
        "spec": entrant.spec,
        "trusted": entrant.trusted,
        "code": dict(code or entrant_code(entrant.resolved)),
        "clairvoyance": None if clairvoyance is None else clairvoyance.to_json(),
    }
    if entrant.player in absent:  # it did not load before the event, and sat out
        data["status"] = "absent"
        data["absent_reason"] = absent[entrant.player]
    return data


@dataclass(frozen=True, slots=True)
class EventRun:
    """A finished run. Its ``result`` holds no session's whole outcome unless the run kept
    them (``run_event(..., keep_sessions=True)``): :meth:`sessions` reads them back."""

    run_dir: Path
    plan: EventPlan
    result: EventResult
    summary: str
    seconds: float
    deals_played: int
    # The summary as the terminal shows it: a big field's first places only.
    screen_summary: str
    # The results digest revealed in results.json (dp_arena.tournament.digest).
    results_digest: str = ""

    def sessions(self) -> Iterator[dict[str, Any]]:
        """Each session's whole outcome as JSON (:func:`plain_session`'s), read back from
        its part one at a time."""
        for brief in self.result.briefs:
            path = RunDir(self.run_dir).session_part(brief.session)
            with path.open(encoding="utf-8") as lines:
                yield session_from_records(json.loads(line) for line in lines)


def run_event(
    config: EventConfig,
    run_dir: Path,
    *,
    executor: Executor | None = None,
    histories: bool = True,
    clock: Callable[[], float] = time.perf_counter,
    code: Mapping[str, Mapping[str, Any]] | None = None,
    written_histories: Callable[[TableUnit], str | None] | None = None,
    keep_sessions: bool = False,
) -> EventRun:
    """Plan and play ``config`` into ``run_dir`` and return what happened (``code``: see
    :func:`results_document`; ``written_histories``: a unit's hand history as the worker
    that played it wrote it, if it did). Each session's whole outcome is written to its
    part and then forgotten, unless ``keep_sessions`` (see :class:`EventRun`)."""
    layout = RunDir(run_dir)
    if layout.results.exists():
        raise RunError(
            f"{run_dir} already holds a finished run ({layout.RESULTS}); choose another --run-dir"
        )
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise RunError(
            f"cannot create the run directory {run_dir}: {error.strerror or error}"
        ) from None
    event_format = get_format(config.format)
    plan = event_format.plan(config)
    observer = _RunDirObserver(
        run_dir, histories, written_histories, tested_players(config.entrants)
    )
    runtime = Runtime(
        executor or SerialExecutor(),
        observer,
        str(layout.logs.resolve()),
        keep_sessions=keep_sessions,
    )
    started = clock()
    try:
        result = event_format.play(config, plan, runtime)
        observer.write_part()  # the last session's
        observer.writer.flush()
    finally:
        observer.writer.close()
        if observer.freeze:
            gc.unfreeze()
    seconds = clock() - started
    players = [entrant.player for entrant in config.entrants]
    # A format played outside table units (the classic freezeout) has no units to test.
    tested = observer.clairvoyance.results(players) if observer.clairvoyance.units else None
    document = plain(
        results_document(
            config,
            event_format,
            plan,
            result,
            observer.history_files,
            code,
            observer.parts,
            tested,
        )
    )
    document["event"][DIGEST_FIELD] = results_digest(document, observer.sha256_of)
    write_atomic(layout.results, summary_pieces(document))
    by_player: dict[str, list[Any]] = {}
    for fault in result.faults:
        by_player.setdefault(fault.player, []).append(fault)
    for player, faults in sorted(by_player.items()):
        write_atomic(layout.faults(player), _dump(faults))
    describe = functools.partial(
        describe_result,
        plan,
        event_format.title,
        result,
        parts=event_format.summary_parts(result, frozenset(player for player, _ in config.absent)),
        deck=config.event_key.label(),
        absent=config.absent,
        entrants=document["entrants"],
    )
    summary = describe()
    write_atomic(layout.summary, summary)
    screen = describe(places=SCREEN_PLACES)  # the same text for a field that fits
    write_atomic(
        layout.timing,
        _dump(
            {
                "seconds": round(seconds, 3),
                "deals_played": observer.deals_played,
                "deals_per_second": round(observer.deals_played / seconds, 1)
                if seconds > 0
                else None,
                "finished": time.strftime("%Y-%m-%dT%H:%M:%S"),
            }
        ),
    )
    return EventRun(
        run_dir,
        plan,
        result,
        summary,
        seconds,
        observer.deals_played,
        screen,
        document["event"][DIGEST_FIELD],
    )
