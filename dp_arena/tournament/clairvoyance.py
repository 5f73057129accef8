"""An event's clairvoyance test: every table unit's deals, as the units finish, tested
for each player against the cards it could not see (:mod:`dp_arena.ratings.clairvoyance`);
written beside each entrant in ``results.json`` (docs/results.md, docs/rankings.md).

A block is one deck: ``(session, section, deal)``, the order the decks are played in for
any one player (a player sits in one section of a session, or in one mini-match at a
time). Each session's blocks are given to the players' tests when the session is over,
so the result is the same whatever order the tables came in and on any executor.

Built-in bots are not tested in an event: they are the house's own code, whose
calibration docs/rankings.md gives, and leaving them out keeps a field of thousands of
them as fast as it was (the test costs about a millisecond of the driver's time for
each table-deal it reads). Every other entrant is, whether sandboxed or trusted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dp_arena.agents.spec import SpecKind, parse_spec
from dp_arena.engine import deck_for
from dp_arena.ratings.board_luck import forget_deals
from dp_arena.ratings.clairvoyance import Clairvoyance, Ledger
from dp_arena.ratings.evidence import FLAG_BELOW
from dp_arena.results import TableSessionResult
from dp_arena.tournament.config import Entrant
from dp_arena.units import TableUnit

__all__ = ["EventClairvoyance", "clairvoyance_summary", "tested_players"]


def tested_players(entrants: Iterable[Entrant]) -> frozenset[str]:
    """The entrants an event tests: every one but the built-in bots."""
    return frozenset(
        entrant.player
        for entrant in entrants
        if parse_spec(entrant.resolved).kind is not SpecKind.BUILTIN
    )


class EventClairvoyance:
    """The test of one event's ``tested`` players, fed its table units as they finish."""

    def __init__(self, tested: frozenset[str]) -> None:
        self._ledger = Ledger()
        self.tested = tested
        self.units = 0

    def unit_finished(self, unit: TableUnit, result: TableSessionResult) -> None:
        self.units += 1
        if self.tested.isdisjoint(unit.players):
            return
        seed, section, session = unit.event_seed, unit.section, unit.session
        self._ledger.add_table(
            unit.rules,
            result,
            lambda deal: deck_for(seed, section, session, deal),
            lambda deal: (session, section, deal),
            self.tested,
        )

    def session_finished(self) -> None:
        self._ledger.close()
        # The next session deals other decks: what was counted for these serves no more.
        forget_deals()

    def results(self, players: Iterable[str]) -> dict[str, Clairvoyance]:
        """Each tested one of ``players``' test (an empty one, p = 1, for a player that
        made no decision); the others have none."""
        return {player: self._ledger.result(player) for player in players if player in self.tested}


def clairvoyance_summary(tests: Mapping[str, Clairvoyance]) -> dict[str, Any]:
    """``results.json``'s ``clairvoyance``: the threshold, and who is flagged by its own
    first decisions and who only by the table test."""
    return {
        "flag_below": FLAG_BELOW,
        "flagged": sorted(player for player, test in tests.items() if test.flagged),
        "table_flagged": sorted(
            player for player, test in tests.items() if test.table.flagged and not test.flagged
        ),
    }
