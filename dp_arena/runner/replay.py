"""Playing recorded table-sessions again with the bots that played them: what
``dp-arena verify RUN_DIR --replay`` and ``dp-arena server verify-match --replay`` do.

Each table-session is played again on its own, in this process, one after the other,
in the order it is given (the callers give an event's in reverse: the mirrored copies of
a bot meet their tables in the opposite order, and never two at once). Its bots are
seated as a run seats them (:func:`~dp_arena.units.run_unit`: built-ins and
trusted bots in this process, every other bot sandboxed), each behind a
:class:`~dp_arena.agents.recorded_seat.RecordedSeat` that asks it every decision with the
view it had in the run and compares its answer with the record, while the table plays
the recorded action. A bot that is repeatable (the same answers to the same views: the
built-ins are) answers as recorded everywhere; a bot whose recorded actions depended on
anything but its view, such as its mirrored copy's cards passed through a channel, or
that draws its own randomness, answers otherwise somewhere, and so does any bot whose
recorded actions were rewritten after the event.

Before anything is played, :func:`code_problems` checks that every bot's code still
hashes to what the run recorded when it started: a replay from other code proves nothing.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dp_arena.agents import Seat, SpecKind, parse_spec
from dp_arena.agents.recorded_seat import Difference, RecordedSeat
from dp_arena.errors import DPArenaError
from dp_arena.names import MANIFEST, REGISTRY_PREFIX
from dp_arena.results import FaultKind, TableSessionResult, place_text, to_json
from dp_arena.rundir.store import decode_result, encode_result
from dp_arena.runner.fingerprint import bot_fingerprints, legacy_fingerprint, unit_id
from dp_arena.tournament.config import Entrant, EventConfig
from dp_arena.units import OnResult, TableUnit, prepare_units, run_unit

__all__ = ["FreePlay", "Replay", "Unseated", "code_problems", "replay_units", "run_code_problems"]

_LOAD_FAULTS = (FaultKind.LOAD_ERROR, FaultKind.LOAD_TIMEOUT)


@dataclass(frozen=True, slots=True)
class Unseated:
    """A bot the replay could not seat at a table-session the run seated it at."""

    player: str
    where: str
    detail: str


@dataclass(slots=True)
class Replay:
    """What a replay played and found. ``results``: each replayed table-session by unit
    id, in its stored form (:func:`~dp_arena.rundir.store.encode_result`)."""

    label: str = "replay"  # what the progress line calls it
    table_sessions: int = 0
    deals: int = 0
    decisions: int = 0
    seconds: float = 0.0
    differences: list[Difference] = field(default_factory=list)
    unseated: list[Unseated] = field(default_factory=list)
    # Table-sessions that went another way than the record (a bot that could not be
    # seated, a hook's fault), or whose replayed result differs from it otherwise.
    departures: list[str] = field(default_factory=list)
    # What is worth knowing but proves nothing: hooks' faults told at other deals.
    notes: list[str] = field(default_factory=list)
    results: dict[str, bytes] = field(default_factory=dict)

    def result(self, identifier: str) -> TableSessionResult | None:
        blob = self.results.get(identifier)
        return None if blob is None else decode_result(blob, f"replayed unit {identifier}")

    def by_player(self) -> dict[str, tuple[Difference, int, int]]:
        """Each bot that answered otherwise than recorded: its first difference in the
        order the event played, how many decisions differ and at how many table-sessions."""
        found: dict[str, list[Difference]] = {}
        for difference in self.differences:
            found.setdefault(difference.player, []).append(difference)
        return {
            player: (
                min(differences, key=lambda difference: difference.order),
                len(differences),
                len({difference.order[:3] for difference in differences}),
            )
            for player, differences in sorted(found.items())
        }

    @property
    def passed(self) -> bool:
        return not (self.differences or self.unseated or self.departures)

    def problems(self, label: Callable[[str], str] = str) -> list[str]:
        """The report's lines: every bot that differs, with its first difference, every bot
        that could not be seated, every table-session that left its record. ``label``
        names a player (with its code, say)."""
        lines = [
            f"{label(player)} differs: {count:,} decision{'s' if count != 1 else ''} at"
            f" {tables:,} table-session{'s' if tables != 1 else ''} answered otherwise than"
            f" recorded; first at {first.describe()}"
            for player, (first, count, tables) in self.by_player().items()
        ]
        lines += [
            f"{label(unseated.player)} could not be seated ({unseated.where}): {unseated.detail}"
            for unseated in self.unseated
        ]
        return lines + self.departures


def replay_units(
    units: Sequence[TableUnit],
    recorded: Callable[[TableUnit], TableSessionResult],
    *,
    on_progress: Callable[[Replay, int], None] | None = None,
) -> Replay:
    """Play ``units`` again, one at a time in the given order, against ``recorded(unit)``
    (see the module); ``on_progress(replay, units)`` after each. Bots' logs go to a
    temporary folder, deleted at the end."""
    replay = Replay()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dp-arena-replay-") as logs:
        units = [dataclasses.replace(unit, log_dir=logs) for unit in units]
        prepare_units(units)
        for unit in units:
            _replay_unit(replay, unit, recorded(unit))
            replay.seconds = time.perf_counter() - started
            if on_progress is not None:
                on_progress(replay, len(units))
    return replay


class FreePlay:
    """An executor that plays the event's units again with their bots and imposes nothing
    recorded: the units ``play(unit_id)`` chooses (and any the record lacks, where the
    event went another way) are played one at a time, each batch the event driver hands
    over in reverse order; the others are answered by ``stored``. What the bots' own play
    gives, standings and prizes, where a replay found them answering otherwise."""

    def __init__(
        self,
        play: Callable[[str], bool],
        stored: Callable[[list[str]], Mapping[str, TableSessionResult]],
        *,
        on_progress: Callable[[Replay, int], None] | None = None,
        expected: int = 0,
    ) -> None:
        self.play = play
        self.stored = stored
        self.on_progress = on_progress
        self.expected = expected  # units it expects to play, for the progress line
        self.counts = Replay(label="the bots' own play")
        self._started = time.perf_counter()

    def run(
        self, units: Sequence[TableUnit], on_result: OnResult | None = None
    ) -> list[TableSessionResult]:
        ids = [unit_id(unit) for unit in units]
        found = self.stored([identifier for identifier in ids if not self.play(identifier)])
        results: list[TableSessionResult | None] = [found.get(identifier) for identifier in ids]
        with tempfile.TemporaryDirectory(prefix="dp-arena-replay-") as logs:
            playing = [
                dataclasses.replace(unit, log_dir=logs)
                for unit, result in zip(units, results, strict=True)
                if result is None
            ]
            prepare_units(playing)
            for index in reversed(range(len(units))):
                if results[index] is None:
                    results[index] = played = run_unit(
                        dataclasses.replace(units[index], log_dir=logs)
                    )
                    self.counts.table_sessions += 1
                    self.counts.deals += len(played.deals)
                    self.counts.seconds = time.perf_counter() - self._started
                    if self.on_progress is not None:
                        self.on_progress(
                            self.counts, max(self.expected, self.counts.table_sessions)
                        )
        answered = [result for result in results if result is not None]
        for index, result in enumerate(answered):
            if on_result is not None:
                on_result(index, result)
        return answered


def _replay_unit(replay: Replay, unit: TableUnit, record: TableSessionResult) -> None:
    where = place_text(unit.session, unit.section, unit.table)
    left: list[str] = []

    def wrap(index: int, seat: Seat) -> Seat:
        return RecordedSeat(
            seat,
            index,
            record,
            (unit.session, unit.section, unit.table),
            replay.differences.append,
            left.append,
        )

    result = run_unit(unit, wrap_seat=wrap)
    replay.table_sessions += 1
    replay.deals += len(result.deals)
    replay.decisions += sum(
        1
        for deal in result.deals
        for action in deal.actions
        if int(action.partition(":")[0]) not in deal.absent
    )
    loaded = {(fault.seat, fault.kind) for fault in record.faults if fault.kind in _LOAD_FAULTS}
    for fault in result.faults:
        if fault.kind in _LOAD_FAULTS and (fault.seat, fault.kind) not in loaded:
            replay.unseated.append(Unseated(fault.player, where, f"{fault.kind}: {fault.detail}"))
    if not left and result != record and _played(result) == _played(record):
        # A sandboxed bot's error in a hook reaches the table with its next message, so
        # the deal it is recorded at (and whether two are told as one) depends on timing:
        # every deal and every decision's fault repeated, the record stands.
        replay.notes.append(
            f"{where}: faults of bots' hooks (begin_session, begin_deal, end_deal) told at"
            f" other deals than recorded: {_faults(record, hooks=True)} recorded,"
            f" {_faults(result, hooks=True)} replayed"
        )
        result = record
    replay.results[unit_id(unit)] = encode_result(to_json(result))
    if result == record:
        return
    if left:
        replay.departures.append(
            f"{where}: the table left the record at {left[0]} (a seat played otherwise than"
            " recorded, so the rest of the table-session was not compared)"
        )
    elif result.faults != record.faults:
        replay.departures.append(
            f"{where}: faults {_faults(record)} recorded, {_faults(result)} replayed"
        )
    else:
        replay.departures.append(f"{where}: the replayed table-session differs from the record")


def _played(result: TableSessionResult) -> tuple[object, ...]:
    """What a table-session played: its deals and the faults of decisions (those the table
    played a substitute for), without the faults of hooks."""
    decided = tuple(fault for fault in result.faults if fault.substituted is not None)
    return (result.table, result.players, result.deals, decided, result.absent_seats)


def _faults(result: TableSessionResult, *, hooks: bool = False) -> str:
    shown = [
        f"{fault.player} {fault.kind}"
        + ("" if fault.deal is None else f" at deal {fault.deal + 1}")
        for fault in result.faults
        if not hooks or fault.substituted is None
    ]
    return "[" + ", ".join(shown[:3]) + (", ..." if len(shown) > 3 else "") + "]"


def code_problems(
    entrants: Iterable[Entrant],
    recorded: Mapping[str, str],
    absent: Iterable[str] = (),
    run_dir: Path | None = None,
) -> list[str]:
    """Why the bots of ``entrants`` cannot be replayed: each whose code does not hash now
    to what the run recorded (``recorded``: resolved spec -> content hash, as
    :func:`~dp_arena.runner.fingerprint.bot_fingerprints` gave it when the run started),
    and each registry bot whose stored folder no longer holds the content its registry
    names. Entrants in ``absent`` sat out and are not asked for; ``run_dir``, when given,
    is named when it lies in a bot's folder (whose hash covers it)."""
    sat_out = set(absent)
    entrants = [entrant for entrant in entrants if entrant.player not in sat_out]
    now = bot_fingerprints(entrants)
    problems = []
    for entrant in entrants:
        before = recorded.get(entrant.resolved)
        after = now[entrant.resolved]
        if before is None:
            problems.append(f"{entrant.player}: the run recorded no hash of its code")
        elif after.startswith("missing:"):
            problems.append(
                f"{entrant.player}: its code cannot be found now ({after});"
                f" the run recorded {before}"
            )
        elif after != before and before != legacy_fingerprint(entrant.resolved):
            problems.append(
                f"{entrant.player}: its code hashes to {after} now, the run recorded {before}:"
                " it changed after the run, and a replay from other code proves nothing"
                + _inside(run_dir, entrant.resolved)
            )
        elif entrant.resolved.startswith(REGISTRY_PREFIX):
            problems += _registry_problems(entrant)
    return problems


def run_code_problems(config: EventConfig, meta: Mapping[str, str], run_dir: Path) -> list[str]:
    """:func:`code_problems` of the entrants of the run in ``run_dir`` (its keyed
    ``config``), against the hashes its store's ``meta`` recorded when it started."""
    return code_problems(
        config.entrants,
        json.loads(meta.get("bots", "{}")),
        absent=(player for player, _ in config.absent),
        run_dir=run_dir,
    )


def _inside(run_dir: Path | None, spec_text: str) -> str:
    """A note when ``run_dir`` lies in the bot folder a bot's hash covers."""
    try:
        spec = parse_spec(spec_text)
    except DPArenaError:
        return ""
    if run_dir is None or spec.kind not in (SpecKind.FILE, SpecKind.FOLDER):
        return ""
    path = Path(str(spec.target)).expanduser().resolve()
    folder = path if spec.kind is SpecKind.FOLDER else path.parent
    if not (folder / MANIFEST).is_file() or not run_dir.resolve().is_relative_to(folder):
        return ""
    return (
        f" (the run directory lies in the bot's folder {folder}, which the hash covers:"
        " the run's own files may be what changed it; keep run directories out of bot folders)"
    )


def _registry_problems(entrant: Entrant) -> list[str]:
    from dp_arena.registry import Registry, content_hash

    try:
        registry, reference = Registry.for_spec(entrant.resolved)
        stored = registry.resolve(reference)
        found = content_hash(stored.folder)
    except (DPArenaError, OSError, ValueError) as error:
        return [f"{entrant.player}: its registry copy cannot be read ({error})"]
    if found != stored.sha256:
        return [
            (
                f"{entrant.player}: its folder in the registry ({stored.folder}) hashes to"
                f" {found}, not to the {stored.sha256} its registry names: it was changed"
            )
        ]
    return []
