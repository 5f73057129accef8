"""``agents/tag.py``, the rule-based tight-aggressive bot, deciding for many tables at
once: the same preflop chart (Bill Chen's score by position and price), the same
postflop hand strength (the share of every possible opponent holding its hand beats
now, from :func:`~dp_arena.envs.batch.cards.board_values`), the same draws and the same
sizes, in integer and floating-point operations done in the bot's order, so that every
decision is the bot's (``tests/envs/test_batch_players.py`` plays both side by side).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from dp_arena.engine.chen import chen_score
from dp_arena.envs.batch.cards import board_values, draw_odds, strength_counts
from dp_arena.envs.batch.engine import CALL, CHECK, FOLD, RAISE
from dp_arena.envs.batch.players import Stateless, passive

if TYPE_CHECKING:
    from dp_arena.envs.batch.tables import BatchTables

__all__ = ["CHEN_SCORES", "TagPlayer"]

_PREFLOP, _FLOP = 0, 1
CHEN_SCORES = np.array(
    [
        [chen_score(first, second) if first != second else 0 for second in range(52)]
        for first in range(52)
    ],
    dtype=np.int64,
)


class TagPlayer(Stateless):
    """``agents/tag.py``'s ``TightAggressiveBot`` at every table and seat at once."""

    def __init__(self, tables: int, seats: int) -> None:
        # Every holding's value on each table's board, kept for the street it was read on.
        self.values = np.zeros((tables, 1326), dtype=np.int16)
        self.possible = np.zeros((tables, 1326), dtype=bool)
        self.read = np.full(tables, -1, dtype=np.int64)  # (deal serial x 8 + street)

    def decide(
        self, tables: BatchTables, rows: np.ndarray, seats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        kinds = np.zeros(rows.size, dtype=np.int64)
        amounts = np.zeros(rows.size, dtype=np.int64)
        preflop = tables.batch.street[rows] == _PREFLOP
        for chosen, decide in ((preflop, self._preflop), (~preflop, self._postflop)):
            lines = chosen.nonzero()[0]
            if lines.size:
                kinds[lines], amounts[lines] = decide(tables, rows[lines], seats[lines])
        return kinds, amounts

    # -- preflop -------------------------------------------------------------------------

    def _preflop(
        self, tables: BatchTables, rows: np.ndarray, seats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        batch = tables.batch
        seat_count = tables.seat_count
        big_blind, small_blind = tables.big_blind, tables.small_blind
        hole = batch.hole_cards[rows, seats]
        score = CHEN_SCORES[hole[:, 0], hole[:, 1]]
        raises = batch.raises[rows, _PREFLOP].sum(axis=1)
        can_raise = batch.can_raise[rows]
        can_check = batch.owed[rows] == 0
        to_call = batch.call_amount[rows]
        can_call = to_call > 0
        pot = batch.committed[rows].sum(axis=1)
        current_bet = batch.current_bet[rows]
        low, high = batch.min_raise_to[rows], batch.max_raise_to[rows]
        kinds = passive(tables, rows)
        amounts = np.zeros(rows.size, dtype=np.int64)
        # Unopened: open from the bar, check, complete the small blind, or fold.
        position = (seats - batch.button[rows]) % seat_count
        bar = _opening_bar(seat_count, position)
        small_blind_seat = (
            batch.button[rows] if seat_count == 2 else (batch.button[rows] + 1) % seat_count
        )
        unopened = raises == 0
        opening = unopened & (score >= bar) & can_raise
        amounts = np.where(
            opening,
            np.minimum(np.maximum((3 + batch.preflop_calls[rows]) * big_blind, low), high),
            amounts,
        )
        completing = (
            unopened
            & ~opening
            & ~can_check
            & (to_call <= big_blind - small_blind)
            & (seats == small_blind_seat)
            & (score >= bar - 2)
        )
        kinds = np.where(opening, RAISE, np.where(unopened & can_check, CHECK, kinds))
        kinds = np.where(completing, CALL, kinds)
        # Facing raises: the bar to call rises with the price.
        price = to_call / (pot + to_call)
        once = raises == 1
        reraise = once & (score >= 12) & can_raise
        call_once = once & ~reraise & (score >= 1 + 16 * price) & can_call
        shove = (raises >= 2) & (score >= 14) & can_raise
        call_more = (raises >= 2) & ~shove & (score >= np.minimum(12, 4 + 16 * price)) & can_call
        amounts = np.where(reraise, np.minimum(np.maximum(3 * current_bet, low), high), amounts)
        amounts = np.where(shove, high, amounts)
        kinds = np.where(reraise | shove, RAISE, kinds)
        kinds = np.where(call_once | call_more, CALL, kinds)
        return kinds, np.where(kinds == RAISE, amounts, 0)

    # -- postflop ------------------------------------------------------------------------

    def _postflop(
        self, tables: BatchTables, rows: np.ndarray, seats: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        batch = tables.batch
        street = batch.street[rows]
        opponents = batch.live[rows] - 1
        hand = self._strength(tables, rows, seats, street)
        # ``strength ** opponents`` exactly as the bot computes it (Python's float power).
        strength = np.array(
            [value**count for value, count in zip(hand.tolist(), opponents.tolist(), strict=True)],
            dtype=np.float64,
        )
        can_raise = batch.can_raise[rows]
        to_call = batch.call_amount[rows]
        pot = batch.committed[rows].sum(axis=1)
        kinds = np.full(rows.size, CHECK, dtype=np.int64)
        fractions = np.zeros((rows.size, 2), dtype=np.int64)  # the raise's pot fraction
        unbet = to_call == 0
        value_bet = unbet & can_raise & (strength >= 0.85)
        thin_bet = unbet & can_raise & ~value_bet & (strength >= 0.65) & (opponents <= 2)
        continuation = (
            unbet
            & can_raise
            & ~value_bet
            & ~thin_bet
            & (opponents == 1)
            & (street == _FLOP)
            & (batch.preflop_raiser[rows] == seats)
        )
        fractions[value_bet] = (3, 4)
        fractions[thin_bet | continuation] = (1, 2)
        betting = value_bet | thin_bet | continuation
        # Facing a bet: raise the pot, call by strength or by the draw's odds, or fold.
        pot_odds = np.where(unbet, 0.0, to_call / np.where(unbet, 1, pot + to_call))
        facing = ~unbet
        raising = facing & can_raise & (strength >= 0.92)
        calling = facing & ~raising & (strength >= np.minimum(0.85, 0.2 + pot_odds))
        drawing = (facing & ~raising & ~calling).nonzero()[0]
        kinds = np.where(facing, FOLD, kinds)
        if drawing.size:
            odds = draw_odds(
                batch.hole_cards[rows[drawing], seats[drawing]],
                batch.board[rows[drawing]],
                street[drawing],
            )
            calling[drawing] = odds >= pot_odds[drawing]
        fractions[raising] = (1, 1)
        kinds = np.where(betting | raising, RAISE, np.where(calling, CALL, kinds))
        amounts = np.zeros(rows.size, dtype=np.int64)
        raised = (kinds == RAISE).nonzero()[0]
        if raised.size:
            amounts[raised] = _pot_fraction(
                tables, rows[raised], seats[raised], fractions[raised, 0], fractions[raised, 1]
            )
        return kinds, amounts

    def _strength(
        self, tables: BatchTables, rows: np.ndarray, seats: np.ndarray, street: np.ndarray
    ) -> np.ndarray:
        """``hand_strength``: the share of the possible opponent holdings each hand beats
        on its board now (ties count half)."""
        batch = tables.batch
        read = tables.serial[rows] * 8 + street
        stale = (self.read[rows] != read).nonzero()[0]
        for size in (3, 4, 5):
            fresh = stale[(street[stale] == size - 2)]
            if fresh.size:
                rows_read = rows[fresh]
                values, possible = board_values(batch.board[rows_read, :size])
                self.values[rows_read], self.possible[rows_read] = values, possible
                self.read[rows_read] = read[fresh]
        beaten, tied, pairs = strength_counts(
            self.values[rows], self.possible[rows], batch.hole_cards[rows, seats], street + 2
        )
        strength: np.ndarray = (beaten + tied / 2) / pairs
        return strength


def _opening_bar(seat_count: int, position: np.ndarray) -> np.ndarray:
    """``opening_bar``: 4 plus the players left to act behind, between 5 and 10."""
    if seat_count == 2:
        return np.full(position.shape, 5, dtype=np.int64)
    behind = np.where(
        (position >= 3) | (position == 0), (seat_count - position) % seat_count + 2, 2 - position
    )
    bar: np.ndarray = np.maximum(5, np.minimum(10, 4 + behind))
    return bar


def _pot_fraction(
    tables: BatchTables,
    rows: np.ndarray,
    seats: np.ndarray,
    numerator: np.ndarray,
    denominator: np.ndarray,
) -> np.ndarray:
    """``raise_to_pot_fraction``: a raise adding the fraction of the pot after a call,
    clamped to the legal range; all in when it would leave under a third behind."""
    batch = tables.batch
    to_call = batch.call_amount[rows]
    pot = batch.committed[rows].sum(axis=1)
    wanted = batch.current_bet[rows] + (pot + to_call) * numerator // denominator
    high = batch.max_raise_to[rows]
    amount = np.minimum(np.maximum(wanted, batch.min_raise_to[rows]), high)
    available = tables.cap - batch.committed[rows, seats]
    all_in_to = batch.street_bets[rows, seats] + available
    amounts: np.ndarray = np.where(
        (all_in_to - amount) * 3 < available, np.minimum(all_in_to, high), amount
    )
    return amounts
