"""Cards for many tables at once: the duplicate decks of many deals, and the showdown
values of many seven-card hands, as NumPy arrays.

:func:`decks` shuffles as :func:`dp_arena.engine.deck_for` does (the Fisher–Yates shuffle
driven by SHAKE-256 that :mod:`dp_arena.engine.deck` describes), with the swaps of every
deck done together; a deck whose stream rejects a word (about two in 10**16) is taken
from ``deck_for`` itself. :func:`hand_values` gives the rank numbers of
:func:`dp_arena.engine.evaluate` (1 best .. 7462 worst) from the evaluator's own lookup
tables, its table of hands without a flush laid out anew so that a hand's value is read
by its ranks without a search. The tests compare both with the engine's functions.

>>> import numpy as np
>>> from dp_arena.engine import deck_for, evaluate, parse_cards
>>> cards = decks([7, 7], [0, 0], [0, 1])
>>> [tuple(row) for row in cards.tolist()] == [deck_for(7, 0, 0, 0), deck_for(7, 0, 0, 1)]
True
>>> hand = parse_cards("AsKsQsJsTs2c3d")
>>> int(hand_values(np.array([hand]))[0]) == evaluate(hand) == 1
True
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from itertools import combinations_with_replacement

import numpy as np

from dp_arena.engine import deck_for
from dp_arena.engine import evaluator as _evaluator

__all__ = [
    "HOLDINGS",
    "HOLDING_INDEX",
    "USES",
    "WITH",
    "board_values",
    "decks",
    "draw_odds",
    "hand_values",
    "ones",
    "strength_counts",
]

_WORDS = 51  # one 64-bit word a swap, when no word is rejected
_INT64 = np.dtype(np.int64)
# Every bound is at most 52, so a word below 2**64 - 64 is accepted at every position.
_NEVER_REJECTED = np.uint64((1 << 64) - 64)
_BOUNDS = np.arange(52, 1, -1, dtype=np.uint64)  # swap k draws among 52 - k cards
_POSITIONS = tuple(range(51, 0, -1))  # and swaps that position


def decks(
    event_seeds: Sequence[int], sessions: Sequence[int], deals: Sequence[int], top: int = 52
) -> np.ndarray:
    """The decks of section 0 of ``(event_seed, session, deal)`` for each index, shape
    ``(count, top)`` (``int64``, top of the deck first): ``deck_for(seed, 0, session, deal)``,
    its first ``top`` cards."""
    count = len(event_seeds)
    shake = hashlib.shake_256
    streams = []
    # The text deck_for hashes, as bytes, its start formatted once for each run of decks
    # of one session (a plain loop: cheaper per deck).
    session_of = None
    start = b""
    for seed, session, deal in zip(event_seeds, sessions, deals, strict=True):
        if (seed, session) != session_of:
            session_of = (seed, session)
            start = b"dp-arena/deck/v1:%d:0:%d:" % session_of
        streams.append(shake(start + b"%d" % deal).digest(8 * _WORDS))
    digests = b"".join(streams)
    words = np.frombuffer(digests, dtype="<u8").reshape(count, _WORDS)
    # Position p of every deck is the contiguous stretch p of ``cards`` (small integers: the
    # swaps move a quarter of the bytes of int64), and ``other`` indexes into it: the places
    # drawn, one contiguous row a swap (turned as bytes, an eighth of the words' size).
    places = np.ascontiguousarray((words % _BOUNDS).astype(np.uint8).T)
    lines = np.arange(count)
    other = np.empty(count, dtype=np.intp)
    cards = np.repeat(np.arange(52, dtype=np.int8), count)
    for step, position in enumerate(_POSITIONS):
        np.multiply(places[step], count, out=other, dtype=np.intp, casting="unsafe")
        other += lines
        stretch = cards[position * count : (position + 1) * count]
        if position < top:
            swapped = cards[other]
            cards[other] = stretch
            stretch[:] = swapped
        else:  # final after its swap, and not kept: only the card it gives moves
            cards[other] = stretch
    dealt = cards[: top * count].reshape(top, count).T.astype(np.int64)
    for row in np.flatnonzero((words >= _NEVER_REJECTED).any(axis=1)).tolist():
        dealt[row] = deck_for(event_seeds[row], 0, sessions[row], deals[row])[:top]
    return dealt


_tables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
# A rank-count key (five to the power of each card's rank, summed) has one base-5 digit a
# rank, at most 4 (no carries): its low digits (ranks 0 to 6) and its high digits (ranks 7
# to 12) index the direct tables of :func:`_direct`.
_LOW_DIGITS = 5**7
_direct_tables: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray] | None] = {}


def _lookup() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The evaluator's tables as arrays: card keys, flush suits, flush values, and the
    non-flush rank-count keys (sorted) with their values."""
    global _tables
    if _tables is None:
        nonflush = _evaluator.NONFLUSH_VALUES
        keys = np.array(sorted(nonflush), dtype=np.int64)
        _tables = (
            np.array(_evaluator.CARD_KEYS, dtype=np.int64),
            np.array(_evaluator.FLUSH_SUIT, dtype=np.int64),
            np.array(_evaluator.FLUSH_VALUES, dtype=np.int64),
            keys,
            np.array([nonflush[key] for key in keys.tolist()], dtype=np.int64),
        )
    return _tables


@functools.cache
def ones(length: int, dtype: np.dtype) -> np.ndarray:
    """A read-only vector of ``length`` ones of ``dtype``, made once: what the batch's
    sums over seats or cards multiply by (as integer products) on every step."""
    vector = np.ones(length, dtype=dtype)
    vector.setflags(write=False)
    return vector


def _digit_sums(keys: np.ndarray) -> np.ndarray:
    """The sum of the base-5 digits of each key (the cards a rank-count key counts)."""
    sums = np.zeros(keys.shape, dtype=np.int64)
    rest = keys.copy()
    while rest.any():
        rest, digit = np.divmod(rest, 5)
        sums += digit
    return sums


def _direct(cards: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The non-flush values of hands of ``cards`` cards read without a search (``None``
    when the evaluator has no such hands): the rank number of rank-count key ``k`` with
    high digits ``h = k // 5**7`` and low digits ``l = k % 5**7`` is at
    ``values[starts[h] + places[l]]``. The low parts are numbered within their number
    of cards (``places``); each high part has the block of the low parts that complete it
    to ``cards`` cards (``starts``). Built once per size, from the evaluator's table."""
    if cards not in _direct_tables:
        _, _, _, nonflush_keys, nonflush_values = _lookup()
        low = np.arange(_LOW_DIGITS, dtype=np.int64)
        low_sums = _digit_sums(low)
        order = np.argsort(low_sums, kind="stable")
        block_sizes = np.bincount(low_sums, minlength=cards + 1)
        block_starts = np.cumsum(block_sizes) - block_sizes
        places = np.empty(_LOW_DIGITS, dtype=np.int64)
        places[order] = np.arange(_LOW_DIGITS) - block_starts[low_sums[order]]
        high_sums = _digit_sums(np.arange(5**6, dtype=np.int64))
        # A high part with more than ``cards`` cards completes no hand: an empty block.
        sizes = np.where(high_sums <= cards, block_sizes[np.maximum(cards - high_sums, 0)], 0)
        starts = np.cumsum(sizes) - sizes
        chosen = _digit_sums(nonflush_keys) == cards
        keys = nonflush_keys[chosen]
        if not keys.size:
            _direct_tables[cards] = None
            return None
        values = np.zeros(int(sizes.sum()), dtype=np.int64)
        values[starts[keys // _LOW_DIGITS] + places[keys % _LOW_DIGITS]] = nonflush_values[chosen]
        # Small types, a quarter of the bytes: the tables stay in the processor's caches.
        _direct_tables[cards] = (
            starts.astype(np.int32),
            places.astype(np.uint16),
            values.astype(np.int16),
        )
    return _direct_tables[cards]


def hand_values(cards: np.ndarray) -> np.ndarray:
    """The rank number of each hand of seven cards along the last axis (any leading
    shape): ``evaluate`` of each, computed as it computes them."""
    card_keys, flush_suit, flush_values, nonflush_keys, nonflush_values = _lookup()
    # Summed as an integer product: NumPy sums along a short last axis several times slower.
    key = card_keys[cards] @ ones(cards.shape[-1], _INT64)
    suit = flush_suit[key & 0xFFF]
    direct = _direct(cards.shape[-1])
    values: np.ndarray
    if direct is None:
        values = nonflush_values[np.searchsorted(nonflush_keys, key >> 12)]
    else:  # read without a search (a binary search was most of this function's time)
        starts, places, table = direct
        high, low = np.divmod(key >> 12, _LOW_DIGITS)
        values = table.take(starts.take(high) + places.take(low)).astype(np.int64)
    flush = suit >= 0
    if np.count_nonzero(flush):
        flush_cards = cards[flush]
        in_suit = (flush_cards & 3) == suit[flush][..., None]
        mask = np.where(in_suit, 1 << (flush_cards >> 2), 0).sum(axis=-1)
        values[flush] = flush_values[mask]
    return values


# Every two-card holding, as (lower card, higher card), and its index by its two cards.
HOLDINGS = np.array([(low, high) for high in range(52) for low in range(high)], dtype=np.int64)
HOLDING_INDEX = np.full((52, 52), -1, dtype=np.int64)
HOLDING_INDEX[HOLDINGS[:, 0], HOLDINGS[:, 1]] = np.arange(len(HOLDINGS))
HOLDING_INDEX[HOLDINGS[:, 1], HOLDINGS[:, 0]] = np.arange(len(HOLDINGS))
# USES[c, h]: holding h holds card c.
USES = np.zeros((52, len(HOLDINGS)), dtype=bool)
USES[HOLDINGS[:, 0], np.arange(len(HOLDINGS))] = True
USES[HOLDINGS[:, 1], np.arange(len(HOLDINGS))] = True
# A holding's value on a board without a flush depends only on its two ranks: the 91
# pairs of ranks, each holding's pair, and the pair's part of the rank-count key.
# (In the order of their keys: a board's 91 look-ups are then in ascending order, which
# NumPy's binary search walks faster.)
_RANK_PAIRS = sorted(
    ((low, high) for high in range(13) for low in range(high + 1)),
    key=lambda pair: 5 ** pair[0] + 5 ** pair[1],
)
_PAIR_OF = {pair: index for index, pair in enumerate(_RANK_PAIRS)}
HOLDING_PAIR = np.array(
    [_PAIR_OF[tuple(sorted((low >> 2, high >> 2)))] for low, high in HOLDINGS.tolist()],
    dtype=np.int64,
)
_PAIR_KEYS = np.array([5**low + 5**high for low, high in _RANK_PAIRS], dtype=np.int64)
# WITH[c]: the 51 holdings that hold card c.
WITH = np.array([np.flatnonzero(USES[card]) for card in range(52)], dtype=np.int64)
_FIRST, _SECOND = HOLDINGS[:, 0], HOLDINGS[:, 1]
# Per suit, the holdings with both cards of that suit, and those with exactly one (the
# suit's card first), and those with none: what a board's flush suit needs.


def _suited(suit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    suits = HOLDINGS & 3
    first, second = np.equal(suits[:, 0], suit), np.equal(suits[:, 1], suit)
    return (
        np.flatnonzero(first & second),
        np.flatnonzero(first ^ second),
        np.flatnonzero(~first & ~second),
    )


_SUITED = [_suited(suit) for suit in range(4)]
_SUITED_BOTH = [both for both, _, _ in _SUITED]
_SUITED_ONE = [one for _, one, _ in _SUITED]
_SUITED_NONE = [none for _, _, none in _SUITED]
_RANK_BIT = np.left_shift(1, np.arange(52) >> 2)  # each card's rank as a bit


_board_tables: tuple[np.ndarray, np.ndarray] | None = None


def _board_table() -> tuple[np.ndarray, np.ndarray]:
    """The value without a flush of every pair of ranks with every board of 3 to 5 cards,
    by the board's ranks: the sorted rank-count keys of the 8,463 multisets of 3 to 5
    ranks, and for each the 91 pairs' values (0 where a rank would be counted five times,
    which real cards cannot be). Built once, from the evaluator's table."""
    global _board_tables
    if _board_tables is None:
        _, _, _, nonflush_keys, nonflush_values = _lookup()
        multisets = sorted(
            {
                sum(5**rank for rank in ranks)
                for size in (3, 4, 5)
                for ranks in combinations_with_replacement(range(13), size)
                if max(ranks.count(rank) for rank in ranks) <= 4
            }
        )
        board_keys = np.array(multisets, dtype=np.int64)
        keys = board_keys[:, None] + _PAIR_KEYS[None, :]
        found = np.minimum(np.searchsorted(nonflush_keys, keys), len(nonflush_keys) - 1)
        pair_table = np.where(nonflush_keys[found] == keys, nonflush_values[found], 0)
        _board_tables = (board_keys, pair_table.astype(np.int16))
    return _board_tables


def board_values(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each board of 3 to 5 cards (rows of ``boards``, all of one length), the rank
    number of every holding of :data:`HOLDINGS` with it (``evaluate`` of the holding and
    the board), shape ``(boards, 1326)`` (``int16``), and which holdings are possible
    (hold no board card). A holding's value is read once per pair of ranks (91 look-ups a board, not
    1,326), and those of the board's flush suit (three or more board cards of one suit)
    from the flush table."""
    flush_values = _lookup()[2]
    board_keys, pair_table = _board_table()
    count = boards.shape[0]
    ranks = boards >> 2
    rank_key = (5**ranks).sum(axis=1)
    values = pair_table[np.searchsorted(board_keys, rank_key)][:, HOLDING_PAIR]
    suits = boards & 3
    suit_counts = (suits[:, :, None] == np.arange(4)).sum(axis=1)
    flush_suit = suit_counts.argmax(axis=1)
    board_count = suit_counts[np.arange(count), flush_suit]
    # A holding makes a flush with the board's suit when it holds 5 - board_count of its
    # cards: both with 3 on the board, one with 4, none with 5 (the board's own flush).
    for row in np.flatnonzero(board_count >= 3).tolist():
        suit = int(flush_suit[row])
        board_bits = int(_RANK_BIT[boards[row][suits[row] == suit]].sum())
        both = _SUITED_BOTH[suit]
        values[row, both] = flush_values[
            board_bits | _RANK_BIT[_FIRST[both]] | _RANK_BIT[_SECOND[both]]
        ]
        if board_count[row] >= 4:
            one = _SUITED_ONE[suit]
            suited = np.where((_FIRST[one] & 3) == suit, _FIRST[one], _SECOND[one])
            values[row, one] = flush_values[board_bits | _RANK_BIT[suited]]
        if board_count[row] == 5:
            values[row, _SUITED_NONE[suit]] = flush_values[board_bits]
    on_board = np.zeros((count, 52), dtype=bool)
    on_board[np.arange(count)[:, None], boards] = True
    possible = ~(on_board[:, _FIRST] | on_board[:, _SECOND])
    return values, possible


def strength_counts(
    values: np.ndarray, possible: np.ndarray, holes: np.ndarray, board_sizes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each row's board (its :func:`board_values`: ``values`` and ``possible``, shape
    ``(rows, 1326)``, and its number of cards) and hole cards (``holes``, shape
    ``(rows, 2)``): how many possible opponent holdings (every pair of cards in neither
    the board nor the hand) the hand beats and ties now, and how many there are."""
    lines = np.arange(holes.shape[0])
    mine = values[lines, HOLDING_INDEX[holes[:, 0], holes[:, 1]]][:, None]
    # Every possible holding, then less those that hold one of the hand's cards (its own
    # holding, tied, is among both cards' and is added back once).
    beaten = _count(possible & (values > mine))
    tied = _count(possible & (values == mine)) + 1
    held = np.concatenate((WITH[holes[:, 0]], WITH[holes[:, 1]]), axis=1)
    held = (lines * values.shape[1])[:, None] + held  # in the flat (rows, 1326) arrays
    held_values = values.reshape(-1)[held]
    held_possible = possible.reshape(-1)[held]
    beaten -= _count(held_possible & (held_values > mine))
    tied -= _count(held_possible & (held_values == mine))
    left = 50 - board_sizes  # the cards in neither the hand nor the board
    return beaten, tied, left * (left - 1) // 2


def _count(mask: np.ndarray) -> np.ndarray:
    """How many entries of each row of a 2-D boolean array are true: summed as bytes
    into 16 bits, which NumPy vectorises (a boolean sum is many times slower); rows are
    shorter than 65,536."""
    counts: np.ndarray = mask.view(np.uint8).sum(axis=1, dtype=np.uint16).astype(np.int64)
    return counts


def draw_odds(hole: np.ndarray, board: np.ndarray, street: np.ndarray) -> np.ndarray:
    """``draw_odds``: the chance that a flush draw or an open-ended straight draw using a
    hole card completes by the river (0 on the river)."""
    odds = np.zeros(hole.shape[0], dtype=np.float64)
    for current in (1, 2):  # flop and turn: 2 and 1 cards to come
        lines = (street == current).nonzero()[0]
        if not lines.size:
            continue
        size = current + 2
        cards = np.concatenate((hole[lines], board[lines, :size]), axis=1)
        suits = cards & 3
        suit_counts = (suits[:, :, None] == np.arange(4)).sum(axis=1)
        hole_suits = (hole[lines, :, None] & 3) == np.arange(4)
        flush_draw = ((suit_counts == 4) & hole_suits.any(axis=1)).any(axis=1)
        ranks = np.zeros((lines.size, 13), dtype=bool)
        ranks[np.arange(lines.size)[:, None], cards >> 2] = True
        hole_ranks = np.zeros((lines.size, 13), dtype=bool)
        hole_ranks[np.arange(lines.size)[:, None], hole[lines] >> 2] = True
        straight_draw = np.zeros(lines.size, dtype=bool)
        for low in range(1, 9):
            run = ranks[:, low : low + 4].all(axis=1)
            touched = hole_ranks[:, low : low + 4].any(axis=1)
            open_below = ~ranks[:, low - 1]
            open_above = ~ranks[:, low + 4] if low + 4 < 13 else np.ones(lines.size, dtype=bool)
            straight_draw |= run & touched & open_below & open_above
        outs = np.where(
            flush_draw & straight_draw, 15, np.where(flush_draw, 9, np.where(straight_draw, 8, 0))
        )
        unseen = 52 - cards.shape[1]
        miss = np.ones(lines.size, dtype=np.float64)
        for drawn in range(5 - size):
            miss = miss * ((unseen - drawn - outs) / (unseen - drawn))
        odds[lines] = 1.0 - miss
    return odds
