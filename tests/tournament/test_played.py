"""What an event keeps of its played sessions (``dp_arena.tournament.played``): a run
directory's event forgets each session's whole outcome once its part is written (as the
next session's first table comes in), so what its driver holds from one session to the
next does not grow with the field."""

from __future__ import annotations

import gc
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from dp_arena.results import TableSessionResult
from dp_arena.tournament.event import run_event
from dp_arena.tournament.loading import parse_config
from dp_arena.tournament.outcomes import MatchOutcome, PlayerSession, SectionOutcome, TableOutcome
from dp_arena.units import SerialExecutor, TableUnit

OUTCOME_RECORDS = {
    record.__name__ for record in (TableOutcome, PlayerSession, SectionOutcome, MatchOutcome)
}


class _Between(SerialExecutor):
    """A serial executor that looks at the driver's memory as each session's first table
    has been handed on (the session before's part is written by then): the interpreter's
    allocated blocks, after a collection, and the outcome records alive (which can only
    be earlier sessions': every section and mini-match has two tables or more, so none
    of this session's is scored yet)."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[int] = []
        self.records: list[Counter[str]] = []

    def run(
        self,
        units: Sequence[TableUnit],
        on_result: Callable[[int, TableSessionResult], None] | None = None,
    ) -> list[TableSessionResult]:
        def told(index: int, result: TableSessionResult) -> None:
            if on_result is not None:
                on_result(index, result)
            if index == 0:
                # The driver freezes what it holds at each session's end: looked at too.
                frozen = gc.get_freeze_count()
                gc.unfreeze()
                gc.collect()
                self.blocks.append(sys.getallocatedblocks())
                alive = (type(item).__name__ for item in gc.get_objects())
                self.records.append(Counter(name for name in alive if name in OUTCOME_RECORDS))
                if frozen:
                    gc.freeze()

        return super().run(units, told)


def _held_between_sessions(players: int, run_dir: Path) -> _Between:
    config = parse_config(
        {
            "event": {"name": "flat", "format": "regular", "seed": 11},
            "field": {"count": players, "from": ["random", "calling-station"]},
        }
    )
    executor = _Between()
    # No hand histories: their writer's thread holds whatever it has not yet written,
    # which would blur the figure (it is the same with them, once they are written).
    run_event(config, run_dir, executor=executor, histories=False)
    return executor


def test_the_driver_holds_no_earlier_session_and_no_more_memory_for_a_bigger_field(
    tmp_path: Path,
) -> None:
    """Once a session is under way the driver holds no table's or seat's record of a session
    already played, and what the blocks it holds grow by from session 2 to the last is the same
    for a field of N and of 4N (keeping every session's outcome costs about 30 blocks an
    entrant over the event)."""
    entrants = 100
    growth = {}
    for players in (entrants, 4 * entrants):
        held = _held_between_sessions(players, tmp_path / str(players))
        assert len(held.records) >= 7  # a regular event of this size plays 7 sessions or more
        assert all(not records for records in held.records)
        # From session 2: session 1 is when the engine's tables and caches are first filled.
        growth[players] = held.blocks[-1] - held.blocks[1]
    # What any event holds (a brief a session, caches) is in both figures; the rest is
    # what 3N more entrants cost: less than a block each.
    assert growth[4 * entrants] - growth[entrants] < 3 * entrants, growth


def test_a_run_leaves_the_collector_as_it_found_it(tmp_path: Path) -> None:
    """The driver freezes what it holds between sessions only when nothing else froze the
    collector's objects, and thaws them when the run ends; someone else's it leaves."""
    config = parse_config(
        {
            "event": {"name": "thawed", "format": "regular", "seed": 11},
            "field": {"count": 40, "from": ["random", "calling-station"]},
        }
    )
    frozen_during: list[int] = []

    class Looking(SerialExecutor):
        def run(self, units, on_result=None):  # type: ignore[no-untyped-def]
            frozen_during.append(gc.get_freeze_count())
            return super().run(units, on_result)

    assert gc.get_freeze_count() == 0
    run_event(config, tmp_path / "thawed", executor=Looking(), histories=False)
    assert frozen_during[0] == 0 and all(count > 0 for count in frozen_during[1:])
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        frozen_during.clear()
        run_event(config, tmp_path / "kept", executor=Looking(), histories=False)
        # Nothing more frozen meanwhile (some of the frozen may have been freed), and
        # nothing thawed at the end.
        assert max(frozen_during) <= frozen and 0 < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()
