"""The rules of capped hold'em stepped as NumPy arrays across many tables at once, for
deals in which every seat starts with the cap (the environments' deals): the vector
environment's engine.

:class:`TableBatch` holds ``tables`` hands, one a row: per-seat arrays of shape
``(tables, seats)`` (chips still available, committed this deal, bet this street,
folded, acted) and per-table arrays (street, player to act, current bet, largest
increment, button). Its steps are those of :mod:`dp_arena.engine.betting` and
:mod:`dp_arena.engine.showdown`, function for function, applied to a set of rows at
once: :meth:`TableBatch.start` deals and posts the blinds, :meth:`TableBatch.apply`
applies one action at each given table (validated first: nothing changes when one is
illegal), moving on to the next player, street or showdown. The legal actions of every
table's player to act are kept up to date in arrays (``call_amount``, ``can_raise``,
``min_raise_to``, ``max_raise_to``, ``owed``).

Because every seat starts the deal with the same chips, the players still in a hand at
its end have always put in the same total (a call never falls short of a bet, and an
all-in is everyone's most): a showdown has one pot, shared by the best hands with the
odd chips from the left of the button, as the engine shares it. The engine's general
rules (a short big blind, side pots) never arise, and :meth:`TableBatch.apply` checks
that they do not. The tests play many thousands of hands here and in
:class:`~dp_arena.engine.HandState` side by side and compare every array after every
action.

>>> import numpy as np
>>> from dp_arena.engine import Betting, TableRules, deck_for
>>> rules = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
>>> batch = TableBatch(rules, tables=2)
>>> rows = np.array([0, 1])
>>> batch.start(rows, np.array([deck_for(1, 0, 0, 0), deck_for(1, 0, 0, 1)]), np.array([0, 1]))
>>> batch.actor.tolist(), batch.call_amount.tolist(), batch.min_raise_to.tolist()
([0, 1], [10, 10], [40, 40])
>>> batch.apply(rows, np.array([FOLD, RAISE]), np.array([0, 60]))
>>> batch.payoffs[0].tolist(), batch.actor.tolist()
([-10, 10], [-1, 0])
"""

from __future__ import annotations

import numpy as np

from dp_arena.engine.rules import Betting, TableRules
from dp_arena.envs.batch_cards import hand_values
from dp_arena.errors import IllegalActionError, IllegalReason

__all__ = ["CALL", "CHECK", "FOLD", "NO_ACTOR", "RAISE", "TableBatch"]

# Action kinds as codes (the order of ActionKind's members).
FOLD, CHECK, CALL, RAISE = 0, 1, 2, 3
NO_ACTOR = -1  # the hand is over
_PREFLOP, _RIVER, _SHOWDOWN = 0, 3, 4
_WORST = 1 << 30  # above every hand value
_LOG_START = 32  # actions logged a deal before the log grows


class TableBatch:
    """``tables`` hands of one table's rules; see the module docstring. The arrays are
    the state: read them, change them only through :meth:`start` and :meth:`apply`."""

    def __init__(self, rules: TableRules, tables: int) -> None:
        if rules.cap is None:
            raise ValueError("TableBatch needs a capped table (cap is None)")
        seats = rules.seat_count
        self.rules = rules
        self.tables = tables
        self.seat_count = seats
        self.cap = rules.cap
        self.small_blind = rules.small_blind
        self.big_blind = rules.big_blind
        self.pot_limit = rules.betting is Betting.POT_LIMIT
        shape = (tables, seats)
        self.available = np.zeros(shape, dtype=np.int64)
        self.committed = np.zeros(shape, dtype=np.int64)
        self.street_bets = np.zeros(shape, dtype=np.int64)
        self.folded = np.zeros(shape, dtype=bool)
        self.acted = np.zeros(shape, dtype=bool)
        self.payoffs = np.zeros(shape, dtype=np.int64)
        self.hole_cards = np.zeros((tables, seats, 2), dtype=np.int64)
        self.board = np.zeros((tables, 5), dtype=np.int64)
        self.street = np.zeros(tables, dtype=np.int64)
        self.actor = np.full(tables, NO_ACTOR, dtype=np.int64)
        self.button = np.zeros(tables, dtype=np.int64)
        self.current_bet = np.zeros(tables, dtype=np.int64)
        self.largest_increment = np.zeros(tables, dtype=np.int64)
        # What the history part of the observation counts: per street and seat, the bets
        # and raises made and the chips put in by actions.
        self.raises = np.zeros((tables, 4, seats), dtype=np.int64)
        self.action_chips = np.zeros((tables, 4, seats), dtype=np.int64)
        # The legal actions of each table's player to act (meaningless when none is).
        self.owed = np.zeros(tables, dtype=np.int64)
        self.call_amount = np.zeros(tables, dtype=np.int64)
        self.can_raise = np.zeros(tables, dtype=bool)
        self.min_raise_to = np.zeros(tables, dtype=np.int64)
        self.max_raise_to = np.zeros(tables, dtype=np.int64)
        # Each deal's actions (kind, raise-to or 0), to replay it on the engine on request.
        self.log_kinds = np.zeros((tables, _LOG_START), dtype=np.int8)
        self.log_amounts = np.zeros((tables, _LOG_START), dtype=np.int64)
        self.log_length = np.zeros(tables, dtype=np.int64)
        self._seat_range = np.arange(seats)
        self._after = np.arange(1, seats + 1)

    # -- dealing ---------------------------------------------------------------------

    def start(self, rows: np.ndarray, decks: np.ndarray, buttons: np.ndarray) -> None:
        """Deal a new hand at each of ``rows`` from its deck (at least the top ``2 x seats
        + 8`` cards, as :func:`~dp_arena.engine.deal_cards` deals them), with its button,
        post the blinds and open the betting, every seat with the cap."""
        seats = self.seat_count
        count = rows.size
        order = (buttons[:, None] + 1 + self._seat_range) % seats  # dealt to, in turn
        lines = np.arange(count)[:, None]
        hole = np.empty((count, seats, 2), dtype=np.int64)
        hole[lines, order, 0] = decks[:, :seats]
        hole[lines, order, 1] = decks[:, seats : 2 * seats]
        self.hole_cards[rows] = hole
        top = 2 * seats  # burn, flop x3, burn, turn, burn, river
        self.board[rows] = decks[:, [top + 1, top + 2, top + 3, top + 5, top + 7]]
        self.button[rows] = buttons
        self.available[rows] = self.cap
        self.committed[rows] = 0
        self.street_bets[rows] = 0
        self.folded[rows] = False
        self.acted[rows] = False
        self.payoffs[rows] = 0
        self.raises[rows] = 0
        self.action_chips[rows] = 0
        self.log_length[rows] = 0
        self.street[rows] = _PREFLOP
        self.actor[rows] = NO_ACTOR
        self.largest_increment[rows] = 0
        # Heads-up the button posts the small blind. Every seat has the cap, at least the
        # big blind: both blinds are posted in full.
        small = buttons if seats == 2 else (buttons + 1) % seats
        big = (small + 1) % seats
        for seats_posting, blind in ((small, self.small_blind), (big, self.big_blind)):
            self.available[rows, seats_posting] -= blind
            self.committed[rows, seats_posting] += blind
            self.street_bets[rows, seats_posting] += blind
        self.current_bet[rows] = self.big_blind
        self._open_betting(rows, (big + 1) % seats)

    # -- acting ----------------------------------------------------------------------

    def apply(self, rows: np.ndarray, kinds: np.ndarray, amounts: np.ndarray) -> None:
        """Apply, at each of ``rows``, action ``kinds`` (``FOLD``, ``CHECK``, ``CALL``,
        ``RAISE``) of its player to act, a raise to ``amounts``; all are checked before
        any is applied."""
        self._verify(rows, kinds, amounts)
        seat = self.actor[rows]
        street = self.street[rows]
        chips = np.where(kinds == CALL, self.call_amount[rows], 0)
        folding = kinds == FOLD
        if folding.any():
            self.folded[rows[folding], seat[folding]] = True
        raising = kinds == RAISE
        if raising.any():
            raised = rows[raising]
            raiser = seat[raising]
            amount = amounts[raising]
            current_bet = self.current_bet[raised]
            largest = self.largest_increment[raised]
            increment = amount - current_bet
            chips[raising] = amount - self.street_bets[raised, raiser]
            full = increment >= np.maximum(largest, self.big_blind)  # reopens the betting
            if full.any():
                self.acted[raised[full]] = False
            self.largest_increment[raised] = np.maximum(largest, increment)
            self.current_bet[raised] = amount
        self.available[rows, seat] -= chips
        self.committed[rows, seat] += chips
        self.street_bets[rows, seat] += chips
        self.acted[rows, seat] = True
        self.raises[rows, street, seat] += raising
        self.action_chips[rows, street, seat] += chips
        self._log(rows, kinds, np.where(raising, amounts, 0))
        self._advance(rows, seat)

    def _verify(self, rows: np.ndarray, kinds: np.ndarray, amounts: np.ndarray) -> None:
        owed = self.owed[rows]
        allowed = np.select(
            [kinds == FOLD, kinds == CHECK, kinds == CALL, kinds == RAISE],
            [
                owed > 0,
                owed == 0,
                self.call_amount[rows] > 0,
                self.can_raise[rows]
                & (amounts >= self.min_raise_to[rows])
                & (amounts <= self.max_raise_to[rows]),
            ],
            default=False,
        )
        allowed &= self.actor[rows] != NO_ACTOR
        if not allowed.all():
            index = int(np.flatnonzero(~allowed)[0])
            raise IllegalActionError(
                IllegalReason.UNKNOWN_ACTION,
                f"table {int(rows[index])}: action {int(kinds[index])}"
                f" ({int(amounts[index])}) is not legal now",
                action=int(kinds[index]),
            )

    def _log(self, rows: np.ndarray, kinds: np.ndarray, amounts: np.ndarray) -> None:
        length = self.log_length[rows]
        if int(length.max()) >= self.log_kinds.shape[1]:
            grow = self.log_kinds.shape[1]
            self.log_kinds = np.pad(self.log_kinds, ((0, 0), (0, grow)))
            self.log_amounts = np.pad(self.log_amounts, ((0, 0), (0, grow)))
        self.log_kinds[rows, length] = kinds
        self.log_amounts[rows, length] = amounts
        self.log_length[rows] = length + 1

    def _legal(self, rows: np.ndarray) -> None:
        """The legal actions of the player to act at ``rows`` (``betting.legal_actions``;
        the bet to match is the current bet: the big blind is never short here)."""
        seat = self.actor[rows]
        available = self.available[rows, seat]
        bet = self.street_bets[rows, seat]
        current_bet = self.current_bet[rows]
        largest = self.largest_increment[rows]
        owed = np.maximum(current_bet - bet, 0)
        call_amount = np.minimum(available, owed)
        full_raise = np.maximum(largest, self.big_blind)
        # Someone else still in could put in more than the current bet.
        could_call = ~self.folded[rows] & (
            self.street_bets[rows] + self.available[rows] > current_bet[:, None]
        )
        could_call[np.arange(rows.size), seat] = False
        can_raise = (
            (call_amount >= largest)
            & (available > owed)
            & ~(self.acted[rows, seat] & (owed < full_raise))
            & could_call.any(axis=1)
        )
        all_in_to = bet + available
        min_raise_to = np.minimum(all_in_to, current_bet + full_raise)
        max_raise_to = all_in_to
        if self.pot_limit:
            pot_to = 2 * current_bet - bet + self.committed[rows].sum(axis=1)
            max_raise_to = np.minimum(all_in_to, np.maximum(min_raise_to, pot_to))
        self.owed[rows] = owed
        self.call_amount[rows] = call_amount
        self.can_raise[rows] = can_raise
        self.min_raise_to[rows] = min_raise_to
        self.max_raise_to[rows] = max_raise_to

    # -- moving on -------------------------------------------------------------------

    def _advance(self, rows: np.ndarray, last: np.ndarray) -> None:
        """The next player to act after ``last``, or the end of the street or the hand."""
        alone = (~self.folded[rows]).sum(axis=1) == 1
        if alone.any():
            won = rows[alone]
            self.actor[won] = NO_ACTOR
            self._settle(won)
            rows = rows[~alone]
            last = last[~alone]
            if not rows.size:
                return
        order = (last[:, None] + self._after) % self.seat_count
        owes = ~self.acted[rows] | (self.street_bets[rows] < self.current_bet[rows, None])
        to_act = ~self.folded[rows] & (self.available[rows] > 0) & owes
        in_turn = np.take_along_axis(to_act, order, axis=1)
        found = in_turn.any(axis=1)
        following = order[np.arange(rows.size), in_turn.argmax(axis=1)]
        acting = rows[found]
        self.actor[acting] = following[found]
        self._legal(acting)
        ended = rows[~found]
        if ended.size:
            dealt = self._next_street(ended)
            self._open_betting(dealt, (self.button[dealt] + 1) % self.seat_count)

    def _open_betting(self, rows: np.ndarray, first: np.ndarray) -> None:
        """Start a betting round at ``rows`` with ``first`` first in turn, or deal on to
        the showdown where it cannot be played."""
        seats = self.seat_count
        while rows.size:
            folded = self.folded[rows]
            available = self.available[rows]
            street_bets = self.street_bets[rows]
            totals = np.where(folded, -1, street_bets + available)
            second_largest = np.sort(totals, axis=1)[:, -2]
            # A player who cannot lose more chips (everyone else is all-in for less) sits out.
            can_act = ~folded & (available > 0) & (second_largest[:, None] > street_bets)
            self.acted[rows] = ~can_act
            order = (first[:, None] + self._seat_range) % seats
            in_turn = np.take_along_axis(can_act, order, axis=1)
            count = can_act.sum(axis=1)
            head = order[np.arange(rows.size), in_turn.argmax(axis=1)]
            head_owes = street_bets[np.arange(rows.size), head] < self.current_bet[rows]
            opened = (count > 1) | ((count == 1) & head_owes)
            acting = rows[opened]
            self.actor[acting] = head[opened]
            self._legal(acting)
            rows = self._next_street(rows[~opened])
            first = (self.button[rows] + 1) % seats

    def _next_street(self, rows: np.ndarray) -> np.ndarray:
        """Close the street's bets at ``rows``; deal the next street, or settle the hand
        after the river. The rows dealt on."""
        self.street_bets[rows] = 0
        self.current_bet[rows] = 0
        self.largest_increment[rows] = 0
        self.actor[rows] = NO_ACTOR
        street = self.street[rows]
        river = street == _RIVER
        if river.any():
            shown = rows[river]
            self.street[shown] = _SHOWDOWN
            self._settle(shown)
            rows = rows[~river]
            street = street[~river]
        self.street[rows] = street + 1
        return rows

    def _settle(self, rows: np.ndarray) -> None:
        """Award the pot at ``rows`` (``showdown.settle``) and set the payoffs."""
        live = ~self.folded[rows]
        committed = self.committed[rows]
        pot = committed.sum(axis=1)
        won = np.zeros_like(committed)
        alone = live.sum(axis=1) == 1
        if alone.any():
            won[alone] = np.where(live[alone], pot[alone, None], 0)
        shown = ~alone
        if shown.any():
            live_shown = live[shown]
            totals = committed[shown]
            highest = np.where(live_shown, totals, -1).max(axis=1)
            lowest = np.where(live_shown, totals, _WORST).min(axis=1)
            if (highest != lowest).any():  # a side pot: only with unequal stacks
                raise AssertionError("TableBatch: players in the hand put in unequal totals")
            table_rows = rows[shown]
            count = table_rows.size
            cards = np.concatenate(
                (
                    self.hole_cards[table_rows],
                    np.broadcast_to(self.board[table_rows, None, :], (count, self.seat_count, 5)),
                ),
                axis=2,
            )
            values = np.where(live_shown, hand_values(cards), _WORST)
            winners = values == values.min(axis=1)[:, None]
            share, odd_chips = np.divmod(pot[shown], winners.sum(axis=1))
            # Odd chips one at a time to the winners from the left of the button.
            turn = (self._seat_range - self.button[table_rows, None] - 1) % self.seat_count
            ahead = (winners[:, None, :] & (turn[:, None, :] < turn[:, :, None])).sum(axis=2)
            won[shown] = np.where(winners, share[:, None] + (ahead < odd_chips[:, None]), 0)
        self.payoffs[rows] = won - committed
