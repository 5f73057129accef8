"""What a format is: the :class:`EventFormat` interface every format implements, and the
:class:`Runtime` it plays on (the executor of its table units, who is told of progress,
where the bots' logs go).

Formats live in the subpackages of :mod:`dp_arena.tournament` (one family each) and
implement this interface; the rest of the tournament reaches them only by name, through
the registry (:mod:`dp_arena.tournament.formats`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from dp_arena.rundir import RunDir
from dp_arena.tournament.config import Problem
from dp_arena.tournament.describe import SummaryParts

if TYPE_CHECKING:
    from dp_arena.results import ScoredResult, TableSessionResult
    from dp_arena.tournament.config import EventConfig, FormatDefaults
    from dp_arena.tournament.outcomes import EventResult, RoundRobinOutcome, SessionOutcome
    from dp_arena.tournament.plan import EventPlan
    from dp_arena.units import Executor, TableUnit

__all__ = ["EventFormat", "NullObserver", "RunObserver", "Runtime", "refused_count"]


class RunObserver(Protocol):
    """Told what happens while an event runs: for progress displays, hand histories
    and checkpoints. Every method may do nothing."""

    def units_started(self, label: str, units: list[TableUnit]) -> None: ...

    def unit_finished(self, unit: TableUnit, result: TableSessionResult) -> None: ...

    def session_finished(self, outcome: SessionOutcome | RoundRobinOutcome) -> None: ...


class EventFormat(Protocol):
    """One event format: its defaults, what it accepts, its plan, and how it is played.
    A format class subclasses this one for the default of its optional check."""

    name: str
    title: str
    defaults: FormatDefaults

    def check_players(self, count: int) -> str | None:
        """``None``, or why the format cannot be played by ``count`` entrants."""
        ...

    def check_options(self, options: Mapping[str, Any]) -> list[Problem]:
        """Problems with the config's ``[options]`` table (fields relative to it). By
        default the format takes none: every option is unknown."""
        return [Problem(key, "unknown option; this format takes none") for key in options]

    def check_config(self, config: EventConfig) -> list[Problem]:
        """Problems that depend on several parts of a valid config at once (options that
        name entrants, say); ``config`` always has a key. None, unless a format says."""
        return []

    def plan(self, config: EventConfig) -> EventPlan: ...

    def summary_parts(self, result: EventResult, absent_players: frozenset[str]) -> SummaryParts:
        """What the format says in its own words in its event's summary (``absent_players``:
        entrants that did not load); by default nothing, the usual text serving."""
        return SummaryParts()

    def play(self, config: EventConfig, plan: EventPlan, runtime: Runtime) -> EventResult: ...


class NullObserver:
    """An observer that ignores everything."""

    def units_started(self, label: str, units: list[TableUnit]) -> None:
        return None

    def unit_finished(self, unit: TableUnit, result: TableSessionResult) -> None:
        return None

    def session_finished(self, outcome: SessionOutcome | RoundRobinOutcome) -> None:
        return None


@dataclass(frozen=True, slots=True)
class Runtime:
    """Where and how an event's table units run: the executor, who is told of progress,
    the folder for the bots' logs (``None``: no logs kept), and whether the event's
    result keeps every session's whole outcome (``keep_sessions``; an observer that
    writes each session down, as a run directory's does, lets the event forget it:
    :mod:`dp_arena.tournament.played`)."""

    executor: Executor
    observer: RunObserver = field(default_factory=NullObserver)
    log_dir: str | None = None
    keep_sessions: bool = True

    @property
    def run_dir(self) -> RunDir | None:
        """The run directory whose bots' logs go to ``log_dir`` (``None``: no logs, no
        run directory: the event is played in memory)."""
        return None if self.log_dir is None else RunDir.of_logs(self.log_dir)

    def run_units(
        self,
        label: str,
        groups: Sequence[Sequence[TableUnit]],
        on_group: Callable[[int, list[ScoredResult]], None] | None = None,
    ) -> list[list[ScoredResult]]:
        """Run the table units of every group (a section, a set, a mini-match...) as one
        batch, telling the observer as they start and as each finishes, and return each
        group's results in the order of its units. ``on_group(index, results)`` is told
        of each group once all its units are in: while the others are still played, so
        that a group's scoring waits for no other's (in no particular order; every group
        is told by the time this returns).

        The observer sees each result whole as it arrives (and writes its hand history);
        the groups get what is scored of it (:class:`~dp_arena.results.ScoredResult`),
        so that a session of many tables is not held with every deal's cards and
        actions until its last table is in (docs/scaling.md)."""
        from dp_arena.results import ScoredResult

        units = [unit for group in groups for unit in group]
        group_of = [index for index, group in enumerate(groups) for _ in group]
        starts = [0]
        for group in groups:
            starts.append(starts[-1] + len(group))
        arrived: list[ScoredResult | None] = [None] * len(units)
        waiting = [len(group) for group in groups]
        told = [False] * len(groups)

        def group_results(index: int) -> list[ScoredResult]:
            kept = arrived[starts[index] : starts[index + 1]]
            return [result for result in kept if result is not None]

        def tell(index: int) -> None:
            if on_group is not None and not told[index]:
                told[index] = True
                on_group(index, group_results(index))

        def finished(index: int, result: TableSessionResult) -> None:
            self.observer.unit_finished(units[index], result)
            if arrived[index] is None:
                arrived[index] = ScoredResult.of(result)
                waiting[group_of[index]] -= 1
                if waiting[group_of[index]] == 0:
                    tell(group_of[index])

        answered = self.executor.run(units, finished)
        for index in range(len(groups)):  # those an executor did not hand on
            if waiting[index]:
                for position in range(starts[index], starts[index + 1]):
                    if arrived[position] is None:
                        arrived[position] = ScoredResult.of(answered[position])
                waiting[index] = 0
            tell(index)
        return [group_results(index) for index in range(len(groups))]


def refused_count(count: int, allowed: bool, rule: str) -> str | None:
    """What :meth:`EventFormat.check_players` says of ``count`` entrants: ``None`` when
    ``allowed``, else the format's ``rule`` (``"a freezeout needs at least 2 entrants"``)
    and the count."""
    return None if allowed else f"{rule}, not {count}"
