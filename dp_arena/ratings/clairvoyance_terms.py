"""The terms of the clairvoyance test (:mod:`dp_arena.ratings.clairvoyance`): the design
of the test, every seat's terms in one deal from its record and the deal's whole deck
(the board terms and the hole-card term), and the hole-card advantage they weigh (the
exact pre-flop showdown share, or the Chen score it was measured against).

Each term has mean exactly zero given everything before the cards (or hands) that
decide it, and a floor known before them; :mod:`dp_arena.ratings.clairvoyance` adds
them up into a bot's test.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from dp_arena.engine import ActionKind, Card, Street, TableRules
from dp_arena.engine.cards import card_rank, card_suit, format_cards
from dp_arena.engine.chen import chen_score
from dp_arena.engine.deck import deal_cards
from dp_arena.ratings.board_luck import showdown_share, showdown_shares
from dp_arena.ratings.equity import replay
from dp_arena.ratings.hole_equity import DENOMINATOR, HALF_POINTS
from dp_arena.results import DealRecord, TableSessionResult

__all__ = [
    "DESIGN",
    "HOLE_STEP",
    "ONE_TABLE",
    "OWN",
    "STATISTICS",
    "STEPS",
    "Design",
    "Term",
    "chen_score",
    "deal_terms",
    "hole_advantage",
    "table_terms",
]


STATISTICS = ("first", "hole", "next", "river")
OWN = ("first", "hole")  # the statistics of the bot's own flag
_ROUNDS = (Street.PREFLOP, Street.FLOP, Street.TURN)
STEPS = 4  # the hole cards, then the three rounds' next cards
HOLE_STEP = 0
ONE_TABLE = frozenset({"first", "hole"})  # a deck's terms from one table only


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
