"""Progress of a run: counts, a live line on a terminal, and the run's log file.

:class:`RunProgress` knows the plan's totals (sessions, table-sessions, table-deals)
and is told of every finished unit, so it can show, rewritten in place on stderr::

    session 3/9 | table-sessions 41/170 (event 381/1,392) | 9,118 table-deals | 1,204 table-deals/s
    | ETA 0:00:14      (one line)

It is drawn by a :class:`~dp_arena.progress.ProgressLine`, so it writes nothing when
the stream is not a terminal (CI, a pipe) or when ``live`` is off (``--quiet``). Units
found in the checkpoint store on a resume are counted apart, so deals per second and the
ETA measure real play only. :class:`RunLog` appends timestamped lines to
``RUN_DIR/run.log``. Clocks here only time and report; nothing
they say reaches the results.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from dp_arena.progress import ProgressLine, format_duration
from dp_arena.tournament.plan import EventPlan, SessionPlan

__all__ = ["PlanTotals", "RunLog", "RunProgress", "format_duration"]


@dataclass(frozen=True, slots=True)
class PlanTotals:
    """What a plan will play: sessions, table-sessions and table-deals (a deal counted
    once per table it is played at)."""

    sessions: int
    table_sessions: int
    table_deals: int

    @staticmethod
    def of_session(session: SessionPlan) -> tuple[int, int]:
        """(table-sessions, table-deals) of one session."""
        units = sum(section.tables for section in session.sections)
        deals = sum(section.tables * section.deals for section in session.sections)
        if session.round_robin is not None:
            tables = sum(len(match) for match in session.round_robin.schedule)
            units += tables
            deals += tables * session.round_robin.deals_per_match
        return units, deals

    @classmethod
    def of(cls, plan: EventPlan) -> PlanTotals:
        counts = [cls.of_session(session) for session in plan.sessions]
        return cls(
            sessions=len(plan.sessions),
            table_sessions=sum(units for units, _ in counts),
            table_deals=sum(deals for _, deals in counts),
        )


class RunProgress:
    """Counts of a running event and its live progress line."""

    def __init__(
        self,
        totals: PlanTotals,
        *,
        stream: IO[str] | None = None,
        live: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
        refresh_seconds: float = 0.25,
    ) -> None:
        self.totals = totals
        self.display = ProgressLine(stream, live=live, interval=refresh_seconds, clock=clock)
        self.live = self.display.live
        self.clock = clock
        self.started = clock()
        self.session = 0
        self.sessions_started = 0
        self.session_units = 0
        self.session_done = 0
        self.units_done = 0
        self.units_stored = 0  # found in the checkpoint store, not played now
        self.deals_done = 0
        self.deals_stored = 0

    # -- events ------------------------------------------------------------------------

    def session_started(self, session: int, units: int) -> None:
        self.session = session
        self.sessions_started += 1
        self.session_units = units
        self.session_done = 0
        self._show(force=True)

    def unit_done(self, deals: int, *, stored: bool = False) -> None:
        self.session_done += 1
        self.units_done += 1
        self.deals_done += deals
        if stored:
            self.units_stored += 1
            self.deals_stored += deals
        self._show()

    def finish(self) -> None:
        """End the live line (leave the terminal on a fresh line)."""
        self.display.finish()

    # -- figures -----------------------------------------------------------------------

    @property
    def elapsed(self) -> float:
        return self.clock() - self.started

    @property
    def deals_played(self) -> int:
        """Table-deals played in this process (not read from the store)."""
        return self.deals_done - self.deals_stored

    @property
    def deals_per_second(self) -> float | None:
        elapsed = self.elapsed
        return self.deals_played / elapsed if elapsed > 0 and self.deals_played else None

    @property
    def eta_seconds(self) -> float | None:
        rate = self.deals_per_second
        if rate is None:
            return None
        return max(0, self.totals.table_deals - self.deals_done) / rate

    def line(self) -> str:
        parts = [
            f"session {self.session}/{self.totals.sessions}",
            (
                f"table-sessions {self.session_done}/{self.session_units}"
                f" (event {self.units_done:,}/{self.totals.table_sessions:,})"
            ),
            f"{self.deals_done:,} table-deals",
        ]
        if self.units_stored:
            parts.append(f"{self.units_stored:,} from the store")
        rate = self.deals_per_second
        parts.append(f"{rate:,.0f} table-deals/s" if rate is not None else "- table-deals/s")
        eta = self.eta_seconds
        parts.append(f"ETA {format_duration(eta)}" if eta is not None else "ETA -")
        return " | ".join(parts)

    def _show(self, *, force: bool = False) -> None:
        if self.live:  # the line is composed only to be drawn
            self.display.show(self.line(), force=force)


class RunLog:
    """Timestamped lines appended to ``RUN_DIR/run.log`` (kept across resumes)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path

    def write(self, message: str) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        with self.path.open("a", encoding="utf-8") as file:
            for line in message.splitlines() or [""]:
                file.write(f"{stamp} {line}\n")
