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

import functools
import itertools
import math
from array import array
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dp_arena.engine import ActionKind, Card, Street, TableRules
from dp_arena.engine.cards import card_rank, card_suit, format_cards
from dp_arena.engine.deck import deal_cards
from dp_arena.ratings.board_luck import showdown_share, showdown_shares
from dp_arena.ratings.equity import replay
from dp_arena.ratings.evidence import Evidence, EvidenceResult
from dp_arena.ratings.hole_equity import DENOMINATOR, HALF_POINTS
from dp_arena.results import DealRecord, TableSessionResult

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

STATISTICS = ("first", "hole", "next", "river")
OWN = ("first", "hole")  # the statistics of the bot's own flag
_ROUNDS = (Street.PREFLOP, Street.FLOP, Street.TURN)
_STEPS = 4  # the hole cards, then the three rounds' next cards
HOLE_STEP = 0
_ONE_TABLE = frozenset({"first", "hole"})  # a deck's terms from one table only


@dataclass(frozen=True, slots=True)
class Design:
    """The fixed choices of the test: the weights (fold, check or call, bet or raise) of
    a round, of the first decision, and of the hole-card term; the hole-card advantage
    (``"equity"``: the pre-flop showdown share head to head; ``"chen"``: 1, 1/2 or 0 as
    the seat's Chen score is above, equal to or below the opponent's); and the
    statistics kept, in order (a subset of :data:`STATISTICS`). Results always use
    :data:`DESIGN`; the others exist to measure their power (``scripts/clairvoyance.py``)."""

    round_weights: tuple[int, int, int] = (-1, 0, 1)
    first_weights: tuple[int, int, int] = (-1, 0, 1)
    hole_weights: tuple[int, int, int] = (-1, 1, 1)
    advantage: str = "equity"
    statistics: tuple[str, ...] = STATISTICS

    @property
    def own(self) -> tuple[int, ...]:
        """The indices of the statistics that decide a bot's own flag."""
        return tuple(index for index, name in enumerate(self.statistics) if name in OWN)


DESIGN = Design()


def _weight(weights: tuple[int, int, int], kinds: Iterable[ActionKind]) -> int:
    kinds = tuple(kinds)
    if ActionKind.FOLD in kinds:
        return weights[0]
    return weights[2] if ActionKind.RAISE in kinds else weights[1]


@dataclass(frozen=True, slots=True)
class Term:
    """One term of one statistic (an index into the design's statistics): where it stands
    in the deal (``step``: 0 the hole cards, 1 to 3 the flop's, turn's and river's
    cards), its ``value``, and its ``floor``, known before the cards (or hands) that
    decide it: ``value >= -floor``."""

    statistic: int
    step: int
    value: Fraction
    floor: Fraction


def deal_terms(
    rules: TableRules,
    record: DealRecord,
    deck: Sequence[Card],
    design: Design = DESIGN,
    seats: Container[int] | None = None,
) -> tuple[tuple[Term, ...], ...]:
    """Every seat's terms in one deal (none for a seat that made no decision or sat
    absent, nor for one not among ``seats`` when given), from the record's actions and
    the deal's whole ``deck``."""
    seat_count = rules.seat_count
    holes, board = deal_cards(tuple(deck), seat_count, record.button)
    state = replay(
        rules,
        button=record.button,
        hole_cards=[format_cards(hole) for hole in holes],
        board=format_cards(board),
        actions=record.actions,
        absent=record.absent,
    )
    absent = frozenset(record.absent)
    kinds: dict[tuple[int, Street], list[ActionKind]] = {}
    folded_by: dict[Street, set[int]] = {street: set() for street in _ROUNDS}
    first: tuple[int, ActionKind] | None = None
    for action in state.history:
        if action.street >= Street.RIVER:
            break
        kinds.setdefault((action.seat, action.street), []).append(action.kind)
        if action.kind is ActionKind.FOLD:
            for street in _ROUNDS[action.street :]:
                folded_by[street].add(action.seat)
        if first is None and action.seat not in absent:
            first = (action.seat, action.kind)
    index = {name: number for number, name in enumerate(design.statistics)}
    terms: list[tuple[Term, ...]] = []
    for seat in range(seat_count):
        found: list[Term] = []
        if seat not in absent and (seats is None or seat in seats):
            if first is not None and first[0] == seat:
                found += _first_terms(design, index, first[1], holes, board, seat, absent)
            found += _round_terms(design, index, kinds, folded_by, holes, board, seat)
        terms.append(tuple(found))
    return tuple(terms)


def _first_terms(
    design: Design,
    index: dict[str, int],
    kind: ActionKind,
    holes: tuple[tuple[Card, Card], ...],
    board: Sequence[Card],
    seat: int,
    absent: frozenset[int],
) -> list[Term]:
    """The terms of a seat's first decision when nobody acted before it: the hole-card
    term (``first`` and ``hole``) and the board terms against every opponent dealt in (a
    set fixed before anybody acted, so nothing an opponent did enters them)."""
    dealt_in = tuple(other for other in range(len(holes)) if other not in absent)
    opponents = tuple(other for other in dealt_in if other != seat)
    if not opponents:
        return []
    mean = _mean_advantage(holes[seat], design.advantage)
    advantage = hole_advantage(holes, seat, opponents, design.advantage)
    hole = _term(HOLE_STEP, _weight(design.hole_weights, (kind,)), advantage - mean, mean)
    found = [Term(index[name], *hole) for name in ("first", "hole") if name in index]
    if "first" in index:
        weight = _weight(design.first_weights, (kind,))
        for street in _ROUNDS:
            # A weight of 0 makes a term of 0 that can lose nothing: no share to count.
            change, before = (
                _board_change(holes, board, street, seat, dealt_in) if weight else _NOTHING
            )
            found.append(Term(index["first"], *_term(street + 1, weight, change, before)))
    return found


def _round_terms(
    design: Design,
    index: dict[str, int],
    kinds: dict[tuple[int, Street], list[ActionKind]],
    folded_by: dict[Street, set[int]],
    holes: tuple[tuple[Card, Card], ...],
    board: Sequence[Card],
    seat: int,
) -> list[Term]:
    """The ``next`` and ``river`` terms of a seat: every round from its first decision on,
    against the players still in at the end of the round."""
    if "next" not in index and "river" not in index:
        return []
    found = []
    carried = 0
    acted = False
    for street in _ROUNDS:
        actions = kinds.get((seat, street), ())
        acted = acted or bool(actions)
        if not acted:
            continue
        weight = _weight(design.round_weights, actions) if actions else 0
        carried += weight
        live = tuple(other for other in range(len(holes)) if other not in folded_by[street])
        counted = (weight and actions and "next" in index) or (carried and "river" in index)
        change, before = _board_change(holes, board, street, seat, live) if counted else _NOTHING
        if actions and "next" in index:
            found.append(Term(index["next"], *_term(street + 1, weight, change, before)))
        if "river" in index:
            found.append(Term(index["river"], *_term(street + 1, carried, change, before)))
    return found


_NOTHING = (Fraction(0), Fraction(0))  # the change and share of a term weighed 0


def _term(
    step: int, weight: int, change: Fraction, before: Fraction
) -> tuple[int, Fraction, Fraction]:
    """``(step, weight x change, floor)`` for a change from ``before`` to somewhere in
    [0, 1]: it falls at most ``before`` and rises at most ``1 - before``."""
    floor = weight * before if weight >= 0 else -weight * (1 - before)
    return step, weight * change, floor


def _board_change(
    holes: tuple[tuple[Card, Card], ...],
    board: Sequence[Card],
    street: Street,
    seat: int,
    live: tuple[int, ...],
) -> tuple[Fraction, Fraction]:
    """delta and the share it starts from: what the cards after ``street`` (the next
    street's) do to the showdown share of ``holes[seat]`` against the players in ``live``
    (itself among them or not; 0 from 0 when nobody else is); ``board`` is the deck's five
    cards. Every seat of a table asks it of the same players still in: their shares are
    counted together (:func:`~dp_arena.ratings.board_luck.showdown_shares`)."""
    if not any(other != seat for other in live):
        return Fraction(0), Fraction(0)
    before = showdown_shares(holes, tuple(board[: street.board_size]), live)[seat]
    after = showdown_shares(holes, tuple(board[: Street(street + 1).board_size]), live)[seat]
    return after - before, before


def table_terms(
    rules: TableRules,
    result: TableSessionResult,
    deck_of: Callable[[int], Sequence[Card]],
    design: Design = DESIGN,
    players: Container[str] | None = None,
) -> Iterable[tuple[int, str, tuple[Term, ...]]]:
    """``(deal, player, terms)`` of every seat that decided something at one table-session
    (of ``players`` alone, when given); ``deck_of(deal)`` is the deal's deck."""
    for record in result.deals:
        seats = None
        if players is not None:
            seats = {seat for seat, player in enumerate(record.players) if player in players}
            if not seats:
                continue
        terms_of = deal_terms(rules, record, deck_of(record.deal), design, seats)
        for seat, terms in enumerate(terms_of):
            if terms:
                yield record.deal, record.players[seat], terms


# -- the hole-card advantage -------------------------------------------------------------


def hole_advantage(
    holes: tuple[tuple[Card, Card], ...],
    seat: int,
    opponents: Sequence[int],
    kind: str = DESIGN.advantage,
) -> Fraction:
    """``a``: the mean advantage of ``holes[seat]`` over each of the ``opponents``' hands,
    in [0, 1]. ``"equity"``: its showdown share head to head, over every board of the
    cards nobody holds (the table's own pre-flop count serves). Whatever the other hands,
    an opponent's hand and the board are a uniform draw from the 50 cards the seat does
    not hold, so its expectation is the share against one random hand."""
    if kind == "equity":
        total = sum((showdown_share(holes, (), seat, (other,)) for other in opponents), Fraction(0))
    else:
        total = sum((_chen_ahead(holes[seat], holes[other]) for other in opponents), Fraction(0))
    return total / len(opponents)


def _chen_ahead(mine: tuple[Card, Card], theirs: tuple[Card, Card]) -> Fraction:
    ours, others = chen_score(*mine), chen_score(*theirs)
    return Fraction(1 if ours > others else 0) if ours != others else Fraction(1, 2)


def _mean_advantage(mine: tuple[Card, Card], kind: str) -> Fraction:
    """``m``: the expectation of the advantage of ``mine`` over one opponent whose hand is
    any pair of the 50 cards it does not hold (for ``"equity"``, with the board: from the
    shipped table, :mod:`dp_arena.ratings.hole_equity`)."""
    if kind != "equity":
        return _mean_chen_ahead(mine)
    high, low = sorted((card_rank(mine[0]), card_rank(mine[1])), reverse=True)
    suited = high != low and card_suit(mine[0]) == card_suit(mine[1])
    return Fraction(HALF_POINTS[high, low, suited], DENOMINATOR)


@functools.lru_cache(maxsize=1326)
def _mean_chen_ahead(mine: tuple[Card, Card]) -> Fraction:
    pairs = list(itertools.combinations([card for card in range(52) if card not in mine], 2))
    return sum((_chen_ahead(mine, pair) for pair in pairs), Fraction(0)) / len(pairs)


# Chen points of the high card, by rank (0 = deuce .. 12 = ace), in half points, and the
# half points lost to the gap between the ranks (0: connected).
_HALF_POINTS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 20)
_GAP_PENALTY = (0, 2, 4, 8, 10)


def chen_score(first: Card, second: Card) -> int:
    """Bill Chen's pre-flop score of two hole cards, rounded up (from -1 for 72 offsuit
    to 20 for aces): the rough hole-card advantage the exact one was measured against.

    >>> from dp_arena.engine import parse_cards
    >>> [chen_score(*parse_cards(hand)) for hand in ("AsAh", "AsKs", "Th9h", "2c2d", "7h2c")]
    [20, 12, 8, 5, -1]
    """
    high, low = sorted((card_rank(first), card_rank(second)), reverse=True)
    if high == low:
        return max(5, _HALF_POINTS[high])  # a pair counts double: 2 x half points / 2
    half_points = _HALF_POINTS[high]
    if card_suit(first) == card_suit(second):
        half_points += 4
    gap = high - low - 1
    half_points -= _GAP_PENALTY[min(gap, 4)]
    if gap <= 1 and high < 10:  # connected or one-gapped below a queen straighten more
        half_points += 2
    return math.ceil(half_points / 2)


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
        self.values = [[Fraction(0)] * _STEPS for _ in range(statistics)]
        self.floors = [[Fraction(0)] * _STEPS for _ in range(statistics)]
        self.one_table = one_table
        self.first_table: int | None = None
        self.decisions = 0

    def add(self, table: int, terms: Sequence[Term], counted: int | None) -> None:
        alone = [term for term in terms if term.statistic in self.one_table]
        if alone and (self.first_table is None or table < self.first_table):
            self.first_table = table
            for statistic in self.one_table:
                self.values[statistic] = [Fraction(0)] * _STEPS
                self.floors[statistic] = [Fraction(0)] * _STEPS
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
            number for number, name in enumerate(design.statistics) if name in _ONE_TABLE
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
                for step in range(_STEPS):
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
