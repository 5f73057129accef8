"""The clairvoyance test: does a bot's play depend on cards it could not see?

Mirrored copies of a bot could pass cards to each other through a side channel that one
machine cannot close. This test catches the use of any channel, known or not, from the
records and the deck alone: a bot that plays on cards it has not seen leaves a trace
that no honest bot can leave, whatever its strategy (docs/rankings.md).

**Board terms.** ``delta`` is what the next street's cards do to a seat's showdown share
(its chance to win plus its part of every split,
:func:`~dp_arena.ratings.board_luck.showdown_share`, exact over every completion of the
board) against a set of opponents fixed before those cards: the share just after them
minus just before. The cards are taken from the deck whether or not they were dealt and
whether the seat stayed in or folded. Given everything before them, the next cards are
uniform over the cards nobody holds and not on the board (the deck is a uniform shuffle;
burn cards are among the unseen), and the share before them is the mean of the share
after them over every card that could come: ``delta`` has mean exactly zero given the
past, and so has ``w x delta`` for any weight ``w`` fixed before the cards came
(``tests/ratings/test_clairvoyance.py`` enumerates them). A bot that bets before good
cards and folds before bad ones makes these terms positive.

**Hole-card term.** At a seat's first decision of a deal when nobody but absent players
acted before it (heads-up the button's first action, six-handed the first to act), every
opponent's hand is uniform over the 1,225 pairs of the 50 cards the seat does not hold.
There the term is ``w x (a - m)``: ``w`` is -1 for a fold and +1 otherwise, ``a`` the
seat's mean pre-flop showdown share head to head against each opponent's real hand,
``m`` its exact mean over every hand an opponent could hold
(:mod:`dp_arena.ratings.hole_equity`): mean zero again.

**Four statistics** (:data:`STATISTICS`), each a sum of such terms:

- ``first``: the first decision only (where nobody acted before): its hole-card term,
  and its weight (-1 fold, 0 check or call, +1 bet or raise) times ``delta`` of every
  street against every opponent dealt in;
- ``hole``: the hole-card term alone;
- ``next``: every round before the river in which the seat acted, weighted by its
  actions in the round (-1 if it folded, +1 if it bet or raised, 0 otherwise), times
  the next street's ``delta`` against the players still in at the end of the round;
- ``river``: the same weights added up round after round from the seat's first decision
  on (also after it folded or went all in), each street weighed by their sum so far:
  each decision's bet on the whole rest of the board.

The first two look at nothing an opponent did, so they hold whatever the opponents
know: they decide the bot's own flag. The last two look at every decision, which answer
what the opponents did; a bot that answers a clairvoyant opponent answers actions that
carry the unseen cards, so its own terms are no longer zero-mean there. All four
together are the *table* test: a flag there says that somebody at the bot's tables
played on unseen cards, the bot or an opponent.

**Blocks and steps.** The mirrored tables of a deal hold the same cards, so a bot's terms
of one deck are added up over its tables (:class:`Ledger`) into one step per statistic
and street, in the order the cards came (the hole cards first). The first decision's
terms come from the bot's first table that has one: at two tables the bot holds hands it
faces at the other, so their hole-card terms are not independent. Each step has mean
zero given every step before it, and a floor known before it (a share falls at most to
0 and rises at most to 1), so the steps feed the test martingales of
:mod:`dp_arena.ratings.evidence`, deck after deck in the order they were played.

What it cannot see: play that depends on unseen cards only where no term looks (an
opponent's cards used after the first decision: knowing them says nothing about the
next card), and weak use of what was learnt, which needs many deals.

>>> from dp_arena.engine import Betting, TableRules, deck_for
>>> from dp_arena.engine.cards import format_cards
>>> from dp_arena.engine.deck import deal_cards
>>> from dp_arena.results import DealRecord
>>> rules = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
>>> deck = deck_for(7, 0, 0, 0)
>>> holes, _ = deal_cards(deck, 2, 0)
>>> record = DealRecord(deal=0, button=0, players=("a", "b"),
...     hole_cards=tuple(format_cards(hole) for hole in holes), board="",
...     actions=("0:fold",), nets=(-10, 10))
>>> terms = deal_terms(rules, record, deck)
>>> for name in STATISTICS:  # the button folded: which steps of each statistic it has
...     print(name, [term.step for term in terms[0] if STATISTICS[term.statistic] == name])
first [0, 1, 2, 3]
hole [0]
next [1]
river [1, 2, 3]
>>> terms[1]  # the big blind never acted
()
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dp_arena.engine import Card, TableRules
from dp_arena.ratings.clairvoyance_terms import (
    DESIGN,
    ONE_TABLE,
    OWN,
    STATISTICS,
    STEPS,
    Design,
    Term,
    chen_score,
    deal_terms,
    hole_advantage,
    table_terms,
)
from dp_arena.ratings.evidence import Evidence, EvidenceResult
from dp_arena.results import TableSessionResult

__all__ = [
    "DESIGN",
    "OWN",
    "STATISTICS",
    "Clairvoyance",
    "Design",
    "Ledger",
    "Steps",
    "Term",
    "chen_score",
    "deal_terms",
    "hole_advantage",
    "table_terms",
]


# -- a bot's result ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Clairvoyance:
    """One bot's test: ``own`` (its first decisions: the flag that names it) and
    ``table`` (every decision: somebody at its tables), over how many ``deals`` (decks)
    and ``decisions`` (rounds in which it acted, at every table)."""

    own: EvidenceResult
    table: EvidenceResult
    deals: int
    decisions: int

    @property
    def p(self) -> float:
        return self.own.p

    @property
    def flagged(self) -> bool:
        return self.own.flagged

    @property
    def z(self) -> float | None:
        return self.own.z[0]

    def to_json(self) -> dict[str, Any]:
        """The JSON of a :data:`DESIGN` result (docs/rankings.md)."""
        first, hole = self.own.z
        _, _, next_z, river_z = self.table.z
        return {
            "z": first,
            "z_hole": hole,
            "p": _significant(self.own.p),
            "flagged": self.own.flagged,
            "table": {
                "z_next": next_z,
                "z_river": river_z,
                "p": _significant(self.table.p),
                "flagged": self.table.flagged,
            },
            "deals": self.deals,
            "decisions": self.decisions,
        }

    @classmethod
    def of(cls, evidence: Evidence, design: Design, deals: int, decisions: int) -> Clairvoyance:
        return cls(evidence.result(design.own), evidence.result(), deals, decisions)


def _significant(p: float) -> float:
    return float(f"{p:.3g}")


# -- blocks ------------------------------------------------------------------------------


class _Block:
    """One player's terms of one deck, summed by statistic and step over its tables; the
    terms of a one-table statistic (``one_table``) only from its first table that has
    them (``first_table``)."""

    __slots__ = ("decisions", "first_table", "floors", "one_table", "values")

    def __init__(self, statistics: int, one_table: frozenset[int]) -> None:
        self.values = [[Fraction(0)] * STEPS for _ in range(statistics)]
        self.floors = [[Fraction(0)] * STEPS for _ in range(statistics)]
        self.one_table = one_table
        self.first_table: int | None = None
        self.decisions = 0

    def add(self, table: int, terms: Sequence[Term], counted: int | None) -> None:
        alone = [term for term in terms if term.statistic in self.one_table]
        if alone and (self.first_table is None or table < self.first_table):
            self.first_table = table
            for statistic in self.one_table:
                self.values[statistic] = [Fraction(0)] * STEPS
                self.floors[statistic] = [Fraction(0)] * STEPS
            for term in alone:
                self.values[term.statistic][term.step] = term.value
                self.floors[term.statistic][term.step] = term.floor
        for term in terms:
            if term.statistic not in self.one_table:
                self.values[term.statistic][term.step] += term.value
                self.floors[term.statistic][term.step] += term.floor
        self.decisions += sum(1 for term in terms if term.statistic == counted)


class Ledger:
    """Each player's terms, summed over its tables as the tables come in (in any order:
    the sums are exact), then given to its test in the order they were played
    (:meth:`close`: by block key, e.g. ``(session, section, deal)``, then by step)."""

    def __init__(self, design: Design = DESIGN, *, keep_steps: bool = False) -> None:
        self.design = design
        # player -> every step given to its test, in order (for :meth:`steps`).
        self._steps: dict[str, list[tuple[int, float, float]]] | None = {} if keep_steps else None
        self._one_table = frozenset(
            number for number, name in enumerate(design.statistics) if name in ONE_TABLE
        )
        # The statistic whose terms are the rounds a player acted in, counted.
        self._counted = design.statistics.index("next") if "next" in design.statistics else None
        self._open: dict[str, dict[tuple[int, ...], _Block]] = {}
        self._evidence: dict[str, Evidence] = {}
        self._counts: dict[str, array[int]] = {}  # player -> [deals, decisions]

    def add(self, player: str, block: tuple[int, ...], table: int, terms: Sequence[Term]) -> None:
        """One seat's terms at ``table`` in the deck of ``block``."""
        blocks = self._open.setdefault(player, {})
        entry = blocks.get(block)
        if entry is None:
            entry = blocks[block] = _Block(len(self.design.statistics), self._one_table)
        entry.add(table, terms, self._counted)

    def add_table(
        self,
        rules: TableRules,
        result: TableSessionResult,
        deck_of: Callable[[int], Sequence[Card]],
        block_of: Callable[[int], tuple[int, ...]],
        players: Container[str] | None = None,
    ) -> None:
        """Every seat's terms of one table-session (of ``players`` alone, when given);
        ``block_of(deal)`` is the deal's key."""
        for deal, player, terms in table_terms(rules, result, deck_of, self.design, players):
            self.add(player, block_of(deal), result.table, terms)

    def close(self) -> None:
        """Give every open block to its player's test, in order of its key and step. Call
        it once every table of those blocks is in (at the end of a session)."""
        statistics = len(self.design.statistics)
        for player, blocks in self._open.items():
            evidence = self._evidence.get(player)
            if evidence is None:
                evidence = self._evidence[player] = Evidence(statistics)
                self._counts[player] = array("q", (0, 0))
            counts = self._counts[player]
            kept = None if self._steps is None else self._steps.setdefault(player, [])
            for key in sorted(blocks):
                block = blocks[key]
                counts[0] += 1
                counts[1] += block.decisions
                for step in range(STEPS):
                    for statistic in range(statistics):
                        value = block.values[statistic][step]
                        floor = block.floors[statistic][step]
                        if value or floor:
                            evidence.add(statistic, value, floor)
                            if kept is not None:
                                kept.append((statistic, float(value), float(floor)))
        self._open.clear()

    def result(self, player: str) -> Clairvoyance:
        """One player's test; a player with no decision has an empty one (p = 1)."""
        self.close()
        evidence = self._evidence.get(player) or Evidence(len(self.design.statistics))
        deals, decisions = self._counts.get(player, (0, 0))
        return Clairvoyance.of(evidence, self.design, int(deals), int(decisions))

    def players(self) -> list[str]:
        """Every player with a decision so far."""
        self.close()
        return sorted(self._evidence)

    def steps(self, player: str) -> Steps:
        """Everything a player's test was given (the ledger must keep steps): to be
        joined with another ledger's in the order they were played (:meth:`Steps.join`)."""
        self.close()
        if self._steps is None:
            raise ValueError("this ledger keeps no steps")
        deals, decisions = self._counts.get(player, (0, 0))
        return Steps(tuple(self._steps.get(player, ())), int(deals), int(decisions))


@dataclass(frozen=True, slots=True)
class Steps:
    """A player's steps ``(statistic, value, floor)`` in the order they were given to its
    test, and its deals and decisions: the test of several matches is their steps joined
    in the order the matches were played."""

    steps: tuple[tuple[int, float, float], ...]
    deals: int
    decisions: int

    @staticmethod
    def join(parts: Iterable[Steps], design: Design = DESIGN) -> Clairvoyance:
        """The test of ``parts`` one after the other."""
        evidence = Evidence(len(design.statistics))
        deals = decisions = 0
        for part in parts:
            for statistic, value, floor in part.steps:
                evidence.add(statistic, value, floor)
            deals += part.deals
            decisions += part.decisions
        return Clairvoyance.of(evidence, design, deals, decisions)
