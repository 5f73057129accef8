"""Cards for many tables at once: the duplicate decks of many deals, and the showdown
values of many seven-card hands, as NumPy arrays.

:func:`decks` shuffles as :func:`dp_arena.engine.deck_for` does (the Fisher–Yates shuffle
driven by SHAKE-256 that :mod:`dp_arena.engine.deck` describes), with the swaps of every
deck done together; a deck whose stream rejects a word (about two in 10**16) is taken
from ``deck_for`` itself. :func:`hand_values` gives the rank numbers of
:func:`dp_arena.engine.evaluate` (1 best .. 7462 worst) from the evaluator's own lookup
tables. The tests compare both with the engine's functions.

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

import hashlib
from collections.abc import Sequence

import numpy as np

from dp_arena.engine import deck_for
from dp_arena.engine import evaluator as _evaluator

__all__ = ["decks", "hand_values"]

_WORDS = 51  # one 64-bit word a swap, when no word is rejected
# Every bound is at most 52, so a word below 2**64 - 64 is accepted at every position.
_NEVER_REJECTED = np.uint64((1 << 64) - 64)
_BOUNDS = np.arange(52, 1, -1, dtype=np.uint64)  # swap k draws among 52 - k cards
_POSITIONS = tuple(range(51, 0, -1))  # and swaps that position


def decks(event_seeds: Sequence[int], sessions: Sequence[int], deals: Sequence[int]) -> np.ndarray:
    """The decks of section 0 of ``(event_seed, session, deal)`` for each index, shape
    ``(count, 52)`` (``int64``, top of the deck first): ``deck_for(seed, 0, session, deal)``."""
    count = len(event_seeds)
    digests = b"".join(
        hashlib.shake_256(f"dp-arena/deck/v1:{seed}:0:{session}:{deal}".encode()).digest(8 * _WORDS)
        for seed, session, deal in zip(event_seeds, sessions, deals, strict=True)
    )
    words = np.frombuffer(digests, dtype="<u8").reshape(count, _WORDS)
    others = (words % _BOUNDS).astype(np.intp)
    cards = np.tile(np.arange(52, dtype=np.int64), (count, 1))
    rows = np.arange(count)
    for step, position in enumerate(_POSITIONS):
        other = others[:, step]
        swapped = cards[rows, other]
        cards[rows, other] = cards[:, position]
        cards[:, position] = swapped
    for row in np.flatnonzero((words >= _NEVER_REJECTED).any(axis=1)).tolist():
        cards[row] = deck_for(event_seeds[row], 0, sessions[row], deals[row])
    return cards


_tables: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None


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


def hand_values(cards: np.ndarray) -> np.ndarray:
    """The rank number of each hand of seven cards along the last axis (any leading
    shape): ``evaluate`` of each, computed as it computes them."""
    card_keys, flush_suit, flush_values, nonflush_keys, nonflush_values = _lookup()
    key = card_keys[cards].sum(axis=-1)
    suit = flush_suit[key & 0xFFF]
    values: np.ndarray = nonflush_values[np.searchsorted(nonflush_keys, key >> 12)]
    flush = suit >= 0
    if flush.any():
        flush_cards = cards[flush]
        in_suit = (flush_cards & 3) == suit[flush][..., None]
        mask = np.where(in_suit, 1 << (flush_cards >> 2), 0).sum(axis=-1)
        values[flush] = flush_values[mask]
    return values
