"""Hand evaluation: the best five-card hand of five to seven cards, as a rank number.

Rank numbers follow ``treys`` exactly: 1 is a royal flush, 7462 is seven-high, and a
lower number is a better hand. ``treys`` is the reference (:func:`evaluate_reference`);
:func:`evaluate` is a faster pure-Python evaluator built from lookup tables, and the
test suite proves the two agree on every one of the 7,462 classes and on a large random
sample of seven-card hands.

How :func:`evaluate` works: every card has a key ``5**rank << 12 | 1 << 3 * suit``.
The sum of the keys of up to seven cards holds, in its low 12 bits, the number of cards
of each suit (three bits a suit), and above them the number of cards of each rank in
base 5. Seven cards hold at most one flush and, when they do, no full house or four of
a kind, so the hand is either looked up by the rank mask of its flush suit or by its
rank counts.

>>> from dp_arena.engine.cards import parse_cards
>>> evaluate(parse_cards("AsKsQsJsTs2c3d"))
1
>>> evaluate(parse_cards("7d5c4h3s2c"))
7462
>>> hand_class_name(evaluate(parse_cards("AhAdKsKc2h")))
'Two Pair'
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Any, TypeVar

from dp_arena.engine.cards import Card, format_card
from dp_arena.engine.evaluator_tables import read_tables

__all__ = [
    "CARD_KEYS",
    "FLUSH_SUIT",
    "FLUSH_VALUES",
    "HAND_CLASSES",
    "NONFLUSH_VALUES",
    "evaluate",
    "evaluate_holdings",
    "evaluate_reference",
    "hand_class",
    "hand_class_name",
]

# Lower bound (best rank number) of each hand class, best class first, as in treys.
HAND_CLASSES: tuple[tuple[str, int, int], ...] = (
    ("Straight Flush", 1, 10),
    ("Four of a Kind", 11, 166),
    ("Full House", 167, 322),
    ("Flush", 323, 1599),
    ("Straight", 1600, 1609),
    ("Three of a Kind", 1610, 2467),
    ("Two Pair", 2468, 3325),
    ("Pair", 3326, 6185),
    ("High Card", 6186, 7462),
)

_RANKS_DESCENDING = tuple(range(12, -1, -1))
Key = TypeVar("Key")
# Straights by top rank, best first; the wheel (A-2-3-4-5) has the five on top.
_STRAIGHT_MASKS = (*(0b11111 << (top - 4) for top in range(12, 3, -1)), 0b1000000001111)


def _build_tables() -> tuple[list[int], dict[int, int], list[int]]:
    """Number every five-card class as treys does and fill the lookup tables."""
    five_rank_sets = [
        ranks
        for ranks in combinations(_RANKS_DESCENDING, 5)
        if sum(1 << r for r in ranks) not in _STRAIGHT_MASKS
    ]
    numbers = itertools.count(1)

    def numbered(keys: Iterable[Key]) -> dict[Key, int]:
        """Each key the next class number, in order (best first)."""
        return {key: next(numbers) for key in keys}

    ranks = _RANKS_DESCENDING
    straight_flush = numbered(_STRAIGHT_MASKS)
    quads = numbered((quad, kicker) for quad in ranks for kicker in ranks if kicker != quad)
    full_house = numbered((trips, pair) for trips in ranks for pair in ranks if pair != trips)
    flush: dict[tuple[int, ...], int] = numbered(five_rank_sets)
    straight = numbered(_STRAIGHT_MASKS)
    three: dict[tuple[int, tuple[int, ...]], int] = numbered(
        (trips, kickers)
        for trips in ranks
        for kickers in combinations([r for r in ranks if r != trips], 2)
    )
    two_pair: dict[tuple[tuple[int, ...], int], int] = numbered(
        (pairs, kicker)
        for pairs in combinations(ranks, 2)
        for kicker in ranks
        if kicker not in pairs
    )
    one_pair: dict[tuple[int, tuple[int, ...]], int] = numbered(
        (pair, kickers)
        for pair in ranks
        for kickers in combinations([r for r in ranks if r != pair], 3)
    )
    high_card: dict[tuple[int, ...], int] = numbered(five_rank_sets)
    assert next(numbers) == 7463

    def best_straight(mask: int) -> int | None:
        for straight_mask in _STRAIGHT_MASKS:
            if mask & straight_mask == straight_mask:
                return straight_mask
        return None

    flush_values = [0] * (1 << 13)
    for mask in range(1 << 13):
        if mask.bit_count() < 5:
            continue
        top = best_straight(mask)
        if top is not None:
            flush_values[mask] = straight_flush[top]
        else:
            best_five = tuple(r for r in _RANKS_DESCENDING if mask >> r & 1)[:5]
            flush_values[mask] = flush[best_five]

    nonflush_values: dict[int, int] = {}
    counts = [0] * 13

    def fill(rank: int, cards_left: int, total: int) -> None:
        if rank < 0:
            if total >= 5:
                nonflush_values[sum(c * 5**r for r, c in enumerate(counts))] = value_of_counts()
            return
        for count in range(min(4, cards_left) + 1):
            counts[rank] = count
            fill(rank - 1, cards_left - count, total + count)
        counts[rank] = 0

    def value_of_counts() -> int:
        present = [r for r in _RANKS_DESCENDING if counts[r]]
        fours = [r for r in present if counts[r] == 4]
        threes = [r for r in present if counts[r] == 3]
        twos = [r for r in present if counts[r] == 2]
        if fours:
            quad = fours[0]
            return quads[quad, next(r for r in present if r != quad)]
        if threes and (len(threes) > 1 or twos):
            trips = threes[0]
            pair = max([*threes[1:], *twos])
            return full_house[trips, pair]
        top = best_straight(sum(1 << r for r in present))
        if top is not None:
            return straight[top]
        if threes:
            trips = threes[0]
            return three[trips, tuple(r for r in present if r != trips)[:2]]
        if len(twos) >= 2:
            pairs = (twos[0], twos[1])
            return two_pair[pairs, next(r for r in present if r not in pairs)]
        if twos:
            pair = twos[0]
            return one_pair[pair, tuple(r for r in present if r != pair)[:3]]
        return high_card[tuple(present[:5])]

    fill(12, 7, 0)

    # FLUSH_SUIT[suit counts] is the suit holding five or more cards, or -1.
    flush_suit = [-1] * (1 << 12)
    for suit_counts in range(1 << 12):
        for suit in range(4):
            if suit_counts >> (3 * suit) & 7 >= 5:
                flush_suit[suit_counts] = suit
    return flush_values, nonflush_values, flush_suit


CARD_KEYS: tuple[int, ...] = tuple(
    (5 ** (card >> 2)) << 12 | 1 << (3 * (card & 3)) for card in range(52)
)

# The lookup tables are loaded on first use, from the file evaluator_tables.py describes
# (milliseconds) or, failing that, built (half a second): importing the engine (every
# command, every sandboxed bot's start) stays fast.
FLUSH_VALUES: list[int]
NONFLUSH_VALUES: dict[int, int]
FLUSH_SUIT: list[int]
_TABLE_NAMES = ("FLUSH_VALUES", "NONFLUSH_VALUES", "FLUSH_SUIT")
_flush_values: list[int] | None = None
_nonflush_values: dict[int, int] = {}
_flush_suit: list[int] = []


def _load_tables() -> None:
    global _flush_values, _nonflush_values, _flush_suit
    flush_values, nonflush_values, flush_suit = read_tables() or _build_tables()
    globals().update(
        FLUSH_VALUES=flush_values, NONFLUSH_VALUES=nonflush_values, FLUSH_SUIT=flush_suit
    )
    _nonflush_values, _flush_suit = nonflush_values, flush_suit
    _flush_values = flush_values  # last: evaluate() takes it as the sign that all are ready


def __getattr__(name: str) -> Any:
    if name in _TABLE_NAMES:
        _load_tables()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def evaluate(cards: Sequence[Card]) -> int:
    """Rank number (1 best .. 7462 worst) of the best five-card hand among 5–7 cards."""
    flush_values = _flush_values
    if flush_values is None:
        _load_tables()
        return evaluate(cards)
    key = 0
    for card in cards:
        key += CARD_KEYS[card]
    suit = _flush_suit[key & 0xFFF]
    if suit < 0:
        return _nonflush_values[key >> 12]
    mask = 0
    for card in cards:
        if card & 3 == suit:
            mask |= 1 << (card >> 2)
    return flush_values[mask]


def evaluate_holdings(board: Sequence[Card], holdings: Iterable[tuple[Card, Card]]) -> list[int]:
    """The rank number of each two-card holding with the same 3–5 board cards, as
    :func:`evaluate` gives it for the holding and the board together: the board's part of
    the key is added up once, not once per holding (a bot that enumerates every
    holding an opponent may have calls this with a thousand of them)."""
    flush_values = _flush_values
    if flush_values is None:
        _load_tables()
        return evaluate_holdings(board, holdings)
    nonflush_values, flush_suit, card_keys = _nonflush_values, _flush_suit, CARD_KEYS
    base = 0
    suit_masks = [0, 0, 0, 0]
    for card in board:
        base += card_keys[card]
        suit_masks[card & 3] |= 1 << (card >> 2)
    ranks = []
    for first, second in holdings:
        key = base + card_keys[first] + card_keys[second]
        suit = flush_suit[key & 0xFFF]
        if suit < 0:
            ranks.append(nonflush_values[key >> 12])
            continue
        mask = suit_masks[suit]
        if first & 3 == suit:
            mask |= 1 << (first >> 2)
        if second & 3 == suit:
            mask |= 1 << (second >> 2)
        ranks.append(flush_values[mask])
    return ranks


def hand_class(value: int) -> int:
    """Index into :data:`HAND_CLASSES` (0 = straight flush .. 8 = high card)."""
    for index, (_, best, worst) in enumerate(HAND_CLASSES):
        if best <= value <= worst:
            return index
    raise ValueError(f"not a hand rank number: {value}")


def hand_class_name(value: int) -> str:
    return HAND_CLASSES[hand_class(value)][0]


def evaluate_reference(cards: Sequence[Card]) -> int:
    """The same rank number computed by ``treys``, the reference evaluator (slow)."""
    from treys import Card as TreysCard
    from treys import Evaluator

    global _TREYS
    if _TREYS is None:
        _TREYS = Evaluator()
    treys_cards = [TreysCard.new(format_card(card)) for card in cards]
    # treys wants the "board" and the "hand" apart; any split of the cards gives the same rank.
    return int(_TREYS.evaluate(treys_cards[2:], treys_cards[:2]))


_TREYS = None
