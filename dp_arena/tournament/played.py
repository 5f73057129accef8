"""What an event keeps of its sessions as it plays them: each finished session is told to
the runtime's observer (a run directory writes its part), then folded into each
entrant's running totals, the faults and a brief for the summary; its whole outcome
(every table's nets, every seat's session) is kept only when the runtime keeps sessions.

So an event driver that writes parts holds one session's outcome at a time, whatever
the number of sessions (docs/scaling.md): what the next session needs (who goes on,
their carryover) each format keeps for itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dp_arena.results import Fault
from dp_arena.tournament.interface import Runtime
from dp_arena.tournament.outcomes import (
    EntrantTotals,
    EventResult,
    RoundRobinOutcome,
    SessionBrief,
    SessionOutcome,
    Standing,
    session_faults,
)

__all__ = ["PlayedSessions"]


class PlayedSessions:
    """The sessions an event has played, as it keeps them; ``players``: the entrants, in
    the order ``results.json`` totals them."""

    def __init__(self, runtime: Runtime, players: Sequence[str]) -> None:
        self._runtime = runtime
        self._outcomes: list[SessionOutcome | RoundRobinOutcome] = []
        self._briefs: list[SessionBrief] = []
        self._faults: list[Fault] = []
        self._totals = EntrantTotals(players)

    def finish(self, outcome: SessionOutcome | RoundRobinOutcome) -> None:
        """A session is over: tell the observer, then keep what the summary needs of it."""
        self._runtime.observer.session_finished(outcome)
        self._totals.add(outcome)
        self._faults += session_faults([outcome])
        self._briefs.append(SessionBrief.of(outcome))
        if self._runtime.keep_sessions:
            self._outcomes.append(outcome)

    def result(self, standings: Sequence[Standing], details: Any = None) -> EventResult:
        """The event's result, with ``standings`` and the format's own ``details``."""
        return EventResult(
            tuple(self._outcomes),
            tuple(standings),
            tuple(self._faults),
            details,
            briefs=tuple(self._briefs),
            totals=self._totals,
        )
