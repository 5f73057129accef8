"""Showdown orders counted exactly over every rest of the board: how many completions of
a known board give each order of the hands in play.

Two ways to the same counts:

- **After the flop** (990 completions at most) every completion is enumerated and each
  hand is looked up in the tables of :mod:`dp_arena.engine.evaluator`, vectorised with
  NumPy.
- **Before the flop** (up to 1.7 million boards) boards are counted by their ranks, not
  enumerated. Without a flush, a hand's value depends only on the ranks of its seven
  cards, and the number of boards showing a given multiset of five ranks is a product of
  binomial coefficients, one per rank, of the unseen cards of that rank: 6,188
  multisets instead of a million boards. The only boards on which a hand can make a
  flush hold three or more cards of one suit (at most one suit can), and a hand needs
  five of that suit with its own two cards: so the boards with exactly *k* cards of a
  suit *s* matter only when some hand holds 5 - *k* cards of *s* or more. Those boards are
  counted apart, by the rank set of their *k* suited cards (each a single choice of
  cards) and the rank multiset of the others (a product of binomial coefficients over
  the cards of the other suits), and their count moves from the order their ranks
  alone would give to the order they really give. Seven cards that hold a flush hold no
  full house or four of a kind, so a hand with a flush is valued by its flush.

Both are exact (integer counts) and agree with each other and with a reference
evaluator enumerating every board (``tests/ratings/test_equity.py``).

>>> from dp_arena.engine.cards import parse_cards
>>> counts = outcome_counts(
...     (tuple(parse_cards("AdAc")), tuple(parse_cards("KhKs"))), (), tuple(parse_cards("AdAcKhKs"))
... )
>>> counts  # aces win, kings win, a split: GNU poker-eval's published counts
{(0, 0): 6538, (0, 1): 1388072, (1, 0): 317694}
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dp_arena.engine import Card
from dp_arena.engine.evaluator import CARD_KEYS, FLUSH_SUIT, FLUSH_VALUES, NONFLUSH_VALUES

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Array = npt.NDArray[np.signedinteger[Any]]

__all__ = ["forget_boards", "outcome_counts", "outcome_table"]

_RANKS = 13
_RANK_BASE = 13  # a runout's ranks, ascending, as one number in base 13
_COUNT_BASE = 5  # rank counts of a hand in base 5: the evaluator's non-flush key


@functools.lru_cache(maxsize=4096)  # the mirrored tables of a deal ask the same question
def outcome_counts(
    holes: tuple[tuple[Card, Card], ...], known_board: tuple[Card, ...], dead: tuple[Card, ...]
) -> dict[tuple[int, ...], int]:
    """How many completions of ``known_board`` give each showdown order of ``holes``:
    keys are per-hand ranks (0 = best; tied hands share a rank: the number of hands
    strictly better), values are how many boards give that order. The completions are
    drawn from the cards that are neither ``dead``, on the board, nor in ``holes``."""
    ranks, counts = outcome_table(holes, known_board, dead)
    return dict(zip(map(tuple, ranks.tolist()), counts.tolist(), strict=True))


@functools.lru_cache(maxsize=4096)
def outcome_table(
    holes: tuple[tuple[Card, Card], ...], known_board: tuple[Card, ...], dead: tuple[Card, ...]
) -> tuple[Array, Array]:
    """:func:`outcome_counts` as arrays (read-only): the orders that occur, a row each with
    a column per hand (its rank), in sorted order, and how many boards give each."""
    excluded = set(dead) | set(known_board) | {card for hole in holes for card in hole}
    unseen = tuple(card for card in range(52) if card not in excluded)
    if not known_board:
        codes, weights = _counted_by_ranks(holes, unseen)
    else:
        codes, weights = _enumerated(holes, known_board, unseen), None
    ranks, counts = _tally_arrays(codes, weights, len(holes))
    ranks.setflags(write=False)
    counts.setflags(write=False)
    return ranks, counts


def forget_boards() -> None:
    """Empty the caches that hold counts of particular hands and boards (kept for the
    mirrored tables of a deal): a process that goes on to other deals, an event's next
    session, needs none of them again."""
    outcome_counts.cache_clear()
    outcome_table.cache_clear()
    _board_ways.cache_clear()
    _SuitedBoards.within.cache_clear()
    _SuitedBoards.rests.cache_clear()


# -- shared ------------------------------------------------------------------------------


class _Tables:
    """The evaluator's tables as arrays: non-flush values by sorted key, flush values by
    rank mask, and binomial coefficients C(n, k) for n up to 4 cards of a rank."""

    def __init__(self) -> None:
        import numpy as np

        keys = sorted(NONFLUSH_VALUES)
        self.nonflush_keys: Array = np.array(keys, dtype=np.int64)
        self.nonflush_values: Array = np.array([NONFLUSH_VALUES[key] for key in keys], np.int64)
        self.flush_values: Array = np.array(FLUSH_VALUES, dtype=np.int64)
        self.flush_suit: Array = np.array(FLUSH_SUIT, dtype=np.int64)
        self.binomial: Array = np.array(
            [[_choose(n, k) for k in range(6)] for n in range(5)], dtype=np.int64
        )

    def nonflush(self, keys: Array) -> Array:
        """Non-flush values of rank-count keys; 0 for a key no deck can give (five of a
        rank), which only boards that are counted zero times ask for."""
        import numpy as np

        position = np.minimum(
            np.searchsorted(self.nonflush_keys, keys), len(self.nonflush_keys) - 1
        )
        found = self.nonflush_keys[position] == keys
        return np.where(found, self.nonflush_values[position], 0)


def _choose(n: int, k: int) -> int:
    return 0 if k > n else len(list(itertools.combinations(range(n), k)))


@functools.lru_cache(maxsize=1)
def _tables() -> _Tables:
    return _Tables()


class _Multisets:
    """Every multiset of ``size`` ranks (ascending, as ``combinations_with_replacement``
    gives them): its count of each rank, its key in base 5 and its ranks in base 13."""

    def __init__(self, size: int) -> None:
        import numpy as np

        runouts = list(itertools.combinations_with_replacement(range(_RANKS), size))
        self.counts: Array = np.zeros((len(runouts), _RANKS), dtype=np.int64)
        for row, runout in enumerate(runouts):
            for rank in runout:
                self.counts[row, rank] += 1
        self.keys: Array = self.counts @ (_COUNT_BASE ** np.arange(_RANKS, dtype=np.int64))
        self.codes: Array = np.array(
            [
                sum(rank * _RANK_BASE**position for position, rank in enumerate(runout))
                for runout in runouts
            ],
            dtype=np.int64,
        )
        self.by_key: Array = np.argsort(self.keys)  # keys are distinct
        self.sorted_keys: Array = self.keys[self.by_key]
        # ways_by_rank[r, n] = C(n, count of rank r) for each multiset: the number of ways
        # to draw its cards of rank r from n unseen cards of that rank.
        binomial = np.array([[_choose(n, k) for k in range(size + 1)] for n in range(5)])
        self.ways_by_rank: Array = np.stack(
            [binomial[:, self.counts[:, rank]] for rank in range(_RANKS)]
        )

    def __len__(self) -> int:
        return len(self.keys)

    def index(self, keys: Array) -> Array:
        """The rows of these multisets' ``keys`` (every key must be one of them)."""
        import numpy as np

        return self.by_key[np.searchsorted(self.sorted_keys, keys)]


@functools.lru_cache(maxsize=6)
def _multisets(size: int) -> _Multisets:
    return _Multisets(size)


def _rank_key(cards: Sequence[Card]) -> int:
    return sum(_COUNT_BASE ** (card >> 2) for card in cards)


def _order_codes(values: Array) -> Array:
    """Each row's showdown order (per hand, how many hands beat it; a lower value is a
    better hand) as one number: the ranks as digits in base ``hands``."""
    import numpy as np

    hands = values.shape[1]
    columns = [np.ascontiguousarray(values[:, index]) for index in range(hands)]
    kind: type[np.signedinteger[Any]] = np.int64 if hands**hands >= 1 << 31 else np.int32
    codes: Array = np.zeros(len(values), dtype=kind)
    rank: Array = np.empty(len(values), dtype=kind)
    for index in range(hands):
        rank[:] = 0
        for other in range(hands):
            if other != index:
                rank += columns[other] < columns[index]
        rank *= hands**index
        codes += rank
    return codes


def _tally(codes: Array, weights: Array | None, hands: int) -> dict[tuple[int, ...], int]:
    """Orders and how many boards give each (``weights`` per row, or one board a row)."""
    ranks, counts = _tally_arrays(codes, weights, hands)
    return dict(zip(map(tuple, ranks.tolist()), counts.tolist(), strict=True))


def _tally_arrays(codes: Array, weights: Array | None, hands: int) -> tuple[Array, Array]:
    """The orders that occur (a row of per-hand ranks each, in sorted order) and how many
    boards give each (``weights`` per row of ``codes``, or one board a row)."""
    import numpy as np

    # Counting into one bin per possible order pays while there are few of them next to
    # the rows; seven hands have 823,543 orders and a flop's rows are 990.
    if hands**hands <= max(1 << 12, 8 * len(codes)):
        found_codes = None
        bins = codes
        size = hands**hands
    else:
        found_codes, bins = np.unique(codes, return_inverse=True)
        size = len(found_codes)
    if weights is None:
        tally = np.bincount(bins, minlength=size)
    else:
        # Float sums of integers below 2**53 are exact; back to integers, checked.
        sums = np.bincount(bins, weights=weights.astype(np.float64), minlength=size)
        tally = np.rint(sums).astype(np.int64)
        assert np.array_equal(tally.astype(np.float64), sums) and (tally >= 0).all()
    present = np.flatnonzero(tally)
    numbers = present.astype(np.int64) if found_codes is None else found_codes[present]
    ranks = (numbers[:, None] // hands ** np.arange(hands, dtype=np.int64)) % hands
    order = np.lexsort(ranks.T[::-1])
    return ranks[order].astype(np.int8), tally[present][order].astype(np.int64)


# -- after the flop: every completion ------------------------------------------------------


def _enumerated(
    holes: tuple[tuple[Card, Card], ...], known_board: tuple[Card, ...], unseen: tuple[Card, ...]
) -> Array:
    """The order code of every completion of ``known_board`` from ``unseen``.

    A seven-card value is looked up by the evaluator's key (see its docstring): rank
    counts in base 5 for hands without a flush, the flush suit's rank mask otherwise.
    The unseen cards are sorted, so every runout's cards come in ascending rank; its
    ranks are then one number in base 13, and each hand's non-flush value for every
    runout of ranks is a table indexed by that number. Flushes are rare and are looked
    up row by row."""
    import numpy as np

    missing = 5 - len(known_board)
    cards = np.array(unseen, dtype=np.int64)
    columns = _combinations(len(cards), missing)
    rows = len(columns[0]) if columns else 1
    rank_codes = np.zeros(rows, dtype=np.int64)
    suit_counts = np.zeros(rows, dtype=np.int64)  # the key's low 12 bits: 3 bits a suit
    for position, column in enumerate(columns):
        rank_codes += ((cards >> 2) * _RANK_BASE**position)[column]
        suit_counts += (1 << 3 * (cards & 3))[column]
    tables = _tables()
    runouts = _multisets(missing)
    values = np.empty((rows, len(holes)), dtype=np.int64)
    for index, hole in enumerate(holes):
        fixed = (*hole, *known_board)
        by_ranks = np.zeros(_RANK_BASE**missing, dtype=np.int64)
        by_ranks[runouts.codes] = tables.nonflush(_rank_key(fixed) + runouts.keys)
        values[:, index] = by_ranks[rank_codes]
        fixed_suits = sum(CARD_KEYS[card] for card in fixed) & 0xFFF
        suits = tables.flush_suit[suit_counts + fixed_suits]
        flushed = np.flatnonzero(suits >= 0)
        if len(flushed):
            suit = suits[flushed]
            masks = np.array(
                [sum(1 << (card >> 2) for card in fixed if card & 3 == each) for each in range(4)]
            )[suit]
            for column in columns:
                drawn = cards[column[flushed]]
                masks += ((drawn & 3) == suit) << (drawn >> 2)
            values[flushed, index] = tables.flush_values[masks]
    return _order_codes(values)


@functools.lru_cache(maxsize=16)
def _combinations(items: int, size: int) -> tuple[Array, ...]:
    """Every ``size``-subset of ``range(items)`` in lexicographic order, as ``size``
    columns (the subset of row ``r`` is ``column[r]`` of each column), built column by
    column (much faster than ``itertools.combinations`` for millions)."""
    import numpy as np

    if size == 0:
        return ()
    rows = np.arange(items, dtype=np.int64)[:, None]
    for _ in range(size - 1):
        last = rows[:, -1]
        extensions = items - 1 - last  # how many larger items can follow each row
        repeated = np.repeat(rows, extensions, axis=0)
        starts = np.repeat(last + 1, extensions)
        offsets = np.arange(int(extensions.sum())) - np.repeat(
            np.cumsum(extensions) - extensions, extensions
        )
        rows = np.hstack([repeated, (starts + offsets)[:, None]])
    columns = tuple(np.ascontiguousarray(rows[:, position]) for position in range(size))
    for column in columns:
        column.setflags(write=False)
    return columns


# -- before the flop: boards counted by their ranks -----------------------------------------


def _counted_by_ranks(
    holes: tuple[tuple[Card, Card], ...], unseen: tuple[Card, ...]
) -> tuple[Array, Array]:
    """Order codes with how many five-card boards from ``unseen`` give each (see the
    module's docstring): one row per multiset of board ranks, counted as if nobody made
    a flush, then for every suit and number of board cards of it that let a hand make a
    flush, rows that move those boards' count from the order by ranks to the real one
    (negative weights take it away)."""
    import numpy as np

    tables = _tables()
    free = [0, 0, 0, 0]  # per suit, the ranks of its unseen cards as a bit mask
    per_rank = [0] * _RANKS  # unseen cards of each rank
    for card in unseen:
        free[card & 3] |= 1 << (card >> 2)
        per_rank[card >> 2] += 1
    boards = _multisets(5)
    ways = _board_ways(tuple(per_rank))
    nonflush = np.empty((len(boards), len(holes)), dtype=np.int32)
    for index, hole in enumerate(holes):
        nonflush[:, index] = _preflop_nonflush(_rank_key(hole))
    by_ranks = _order_codes(nonflush)
    # The boards on which someone can make a flush, a block of rows per suit and number
    # of board cards of that suit (rows: suited subset x rest, subset by subset); each
    # block's flush values are filled in below.
    row_blocks: list[Array] = []
    weight_blocks: list[Array] = []
    fills: list[tuple[int, int, Array, int]] = []  # hand, first row, flush per subset, rests
    start = 0
    for suit in range(4):
        held = [sum(card & 3 == suit for card in hole) for hole in holes]
        # Unseen cards of each rank in the other suits.
        others = tuple(count - (free[suit] >> rank & 1) for rank, count in enumerate(per_rank))
        for suited in (3, 4, 5):
            flushing = [index for index, count in enumerate(held) if count + suited >= 5]
            if not flushing:
                continue
            layout = _suited_boards(suited)
            subsets = layout.within(free[suit])
            rest_ways, rests = layout.rests(others)
            if not len(subsets) or not len(rests):
                continue
            row_blocks.append(layout.rows[subsets[:, None], rests[None, :]].ravel())
            weight_blocks.append(np.tile(rest_ways, len(subsets)))
            masks = layout.masks[subsets]
            for index in flushing:
                hole_mask = sum(1 << (card >> 2) for card in holes[index] if card & 3 == suit)
                fills.append((index, start, tables.flush_values[masks | hole_mask], len(rests)))
            start += len(subsets) * len(rests)
    if not row_blocks:
        return by_ranks, ways
    rows = np.concatenate(row_blocks)
    moved = np.concatenate(weight_blocks)
    real = nonflush[rows]
    # Each hand that can flush on a block's boards is valued by its flush there (the
    # board's suited ranks and its own), the same for every rest of the board.
    for index, first, flush, repeats in fills:
        values = flush if repeats == 1 else np.repeat(flush, repeats)
        real[first : first + len(values), index] = values
    # Those boards' count leaves their order by ranks and goes to their real order.
    removed = np.bincount(rows, weights=moved.astype(np.float64), minlength=len(ways))
    left = ways - np.rint(removed).astype(np.int64)
    assert (left >= 0).all()
    return np.concatenate([by_ranks, _order_codes(real)]), np.concatenate([left, moved])


@functools.lru_cache(maxsize=4096)
def _board_ways(per_rank: tuple[int, ...]) -> Array:
    """How many five-card boards show each multiset of ranks (:func:`_multisets` (5)),
    with ``per_rank`` unseen cards of each rank: a product of binomial coefficients."""
    import numpy as np

    boards = _multisets(5)
    ways: Array = np.prod(boards.ways_by_rank[np.arange(_RANKS), list(per_rank)], axis=0)
    ways.setflags(write=False)
    return ways


@functools.lru_cache(maxsize=128)  # 91 pairs of hole ranks
def _preflop_nonflush(hole_key: int) -> Array:
    """The non-flush value of a hand (its two ranks' key) with every multiset of five
    board ranks, in the order of :func:`_multisets` (5)."""
    values = _tables().nonflush(hole_key + _multisets(5).keys)
    values.setflags(write=False)
    return values


class _SuitedBoards:
    """Boards with ``suited`` cards of one suit, by the rank set of those cards (every
    ``suited``-subset of the 13 ranks, in colex order) and the rank multiset of the
    others (:func:`_multisets` (5 - ``suited``)): each pair's row among the multisets of
    five ranks, and each subset's rank mask."""

    def __init__(self, suited: int) -> None:
        import numpy as np

        boards = _multisets(5)
        rest = _multisets(5 - suited)
        subsets = sorted(
            itertools.combinations(range(_RANKS), suited), key=lambda ranks: ranks[::-1]
        )
        keys = np.array([_rank_key([rank << 2 for rank in ranks]) for ranks in subsets])
        self.rows: Array = boards.index(keys[:, None] + rest.keys[None, :])
        self.masks: Array = np.array([sum(1 << rank for rank in ranks) for ranks in subsets])
        self.rest_counts: Array = rest.counts

    @functools.lru_cache(maxsize=8192)  # noqa: B019 (three layouts, kept for the process)
    def within(self, free: int) -> Array:
        """The subsets (their indices) whose ranks all lie in the rank mask ``free``."""
        import numpy as np

        found: Array = np.flatnonzero((self.masks & ~free) == 0)
        found.setflags(write=False)
        return found

    @functools.lru_cache(maxsize=8192)  # noqa: B019 (three layouts, kept for the process)
    def rests(self, others: tuple[int, ...]) -> tuple[Array, Array]:
        """With ``others`` unseen cards of each rank outside the suit: how many ways each
        rest multiset can be drawn, for the multisets that can (and their indices)."""
        import numpy as np

        binomial = _tables().binomial
        ways = np.prod(binomial[np.array(others)[None, :], self.rest_counts], axis=1)
        possible: Array = np.flatnonzero(ways)
        kept: Array = ways[possible]
        possible.setflags(write=False)
        kept.setflags(write=False)
        return kept, possible


@functools.lru_cache(maxsize=3)
def _suited_boards(suited: int) -> _SuitedBoards:
    return _SuitedBoards(suited)
