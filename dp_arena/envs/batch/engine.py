"""The rules of capped hold'em stepped as NumPy arrays across many tables at once, for
deals in which every seat starts with the cap (the environments' deals): the vector
environment's engine.

:class:`TableBatch` holds ``tables`` hands, one a row: per-seat arrays of shape
``(tables, seats)`` (committed this deal, bet this street, folded, acted; what is still
available is the cap minus what is committed) and per-table arrays (street, player to
act, current bet, largest increment, button). Its steps are those of
:mod:`dp_arena.engine.betting` and :mod:`dp_arena.engine.showdown`, function for
function, applied to a set of rows at once: :meth:`TableBatch.start` deals and posts the
blinds, :meth:`TableBatch.apply` applies one action at each given table (validated
first: nothing changes when one is illegal), moving on to the next player, street or
showdown. The legal actions of every table's player to act are kept in arrays (``owed``,
``call_amount``, ``can_raise``, ``min_raise_to``, ``max_raise_to``, and the kinds
allowed as ``permissions``), found after each call or, for a caller that both applies
actions and deals new hands in one step, once for both by
:meth:`TableBatch.update_legal`.

The steps gather the rows they work on with ``take`` and flat indices (``row x seats +
seat``), which NumPy does several times faster than fancy indexing of a 2-D array, and
reduce over the seats with an integer product (:func:`row_sums`) or ``argmax``
(:func:`row_any`, :func:`row_max`, :func:`first_in_turn`): NumPy reduces along a short
last axis several times slower. At a thousand tables these calls, not the arithmetic,
are most of a step.

Because every seat starts the deal with the same chips, the players still in a hand at
its end have always put in the same total (a call never falls short of a bet, and an
all-in is everyone's most): a showdown has one pot, shared by the best hands with the
odd chips from the left of the button, as the engine shares it. The engine's general
rules for a short big blind and side pots never apply (a cap is at least the big
blind), and settling checks that the totals are equal. The tests play many thousands
of hands here and in :class:`~dp_arena.engine.HandState` side by side and compare every
array after every action.

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
from dp_arena.envs.batch.cards import hand_values, ones
from dp_arena.errors import IllegalActionError, IllegalReason

__all__ = [
    "CALL",
    "CHECK",
    "FOLD",
    "NO_ACTOR",
    "RAISE",
    "TableBatch",
    "first_in_turn",
    "row_any",
    "row_max",
    "row_sums",
]

# Action kinds as codes (the order of ActionKind's members).
FOLD, CHECK, CALL, RAISE = 0, 1, 2, 3
NO_ACTOR = -1  # the hand is over
_PREFLOP, _SHOWDOWN = 0, 4
_WORST = 1 << 30  # above every hand value
_LOG_START = 32  # actions logged a deal before the log grows
# The permission bits of a legal kind: fold 8, check 4, call 2, raise 1 (kind k is bit 3 - k).
_FOLD_BIT, _CHECK_BIT, _CALL_BIT = 8, 4, 2


def row_sums(values: np.ndarray) -> np.ndarray:
    """Each row's sum of a ``(rows, seats)`` integer array (exact: an integer product)."""
    sums: np.ndarray = values @ ones(values.shape[1], values.dtype)
    return sums


def row_any(mask: np.ndarray) -> np.ndarray:
    """Whether each row of a ``(rows, seats)`` boolean array has a true entry: the entry
    ``argmax`` finds (the first true one, or the first)."""
    found: np.ndarray = mask.reshape(-1)[_cells(mask, mask.argmax(axis=1))]
    return found


def row_max(values: np.ndarray) -> np.ndarray:
    """Each row's largest entry of a ``(rows, seats)`` array."""
    largest: np.ndarray = values.reshape(-1)[_cells(values, values.argmax(axis=1))]
    return largest


def first_in_turn(eligible: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row of ``eligible`` (``(rows, seats)``, boolean) and its seats in turn
    (``order``, a row of seat numbers each), the first eligible seat in turn (or the
    first in turn, when none is) and whether there is one."""
    rows, seats = order.shape
    lines = np.arange(0, rows * seats, seats)  # each row's first cell in the flat arrays
    in_turn = eligible.reshape(-1).take(lines[:, None] + order)
    first = lines + in_turn.argmax(axis=1)  # the first eligible place's cell
    return order.reshape(-1).take(first), in_turn.reshape(-1).take(first)


def _cells(values: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """The flat indices of ``columns[i]`` (one column or a row of them) of row ``i`` of the
    2-D ``values``."""
    starts = np.arange(0, values.size, values.shape[1])
    cells: np.ndarray = (starts if columns.ndim == 1 else starts[:, None]) + columns
    return cells


class TableBatch:
    """``tables`` hands of one table's rules; see the module docstring. The arrays are
    the state: read them, change them only through :meth:`start` and :meth:`apply`.
    With ``preflop`` false, what rule-based players read of the betting before the flop
    (``preflop_calls``, ``preflop_raiser``) is not kept: a caller whose players do not
    read it saves the work."""

    def __init__(self, rules: TableRules, tables: int, *, preflop: bool = True) -> None:
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
        # Every seat starts with the cap: what it still has available is the cap minus
        # what it committed (:attr:`available`).
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
        self.live = np.zeros(tables, dtype=np.int64)  # players still in the hand
        # What the history part of the observation counts: per street and seat, the bets
        # and raises made and the chips put in by actions.
        self.raises = np.zeros((tables, 4, seats), dtype=np.int64)
        self.action_chips = np.zeros((tables, 4, seats), dtype=np.int64)
        # What rule-based players read of the history: the calls before the flop, and the
        # seat of the last raise before the flop (NO_ACTOR when none).
        self.preflop = preflop
        self.preflop_calls = np.zeros(tables, dtype=np.int64)
        self.preflop_raiser = np.full(tables, NO_ACTOR, dtype=np.int64)
        # The legal actions of each table's player to act (meaningless when none is), and
        # the kinds allowed as bits (fold 8, check 4, call 2, raise 1).
        self.owed = np.zeros(tables, dtype=np.int64)
        self.call_amount = np.zeros(tables, dtype=np.int64)
        self.can_raise = np.zeros(tables, dtype=bool)
        self.min_raise_to = np.zeros(tables, dtype=np.int64)
        self.max_raise_to = np.zeros(tables, dtype=np.int64)
        self.permissions = np.zeros(tables, dtype=np.int64)
        # Each deal's actions (kind, raise-to or 0), to replay it on the engine on request.
        self.log_kinds = np.zeros((tables, _LOG_START), dtype=np.int64)
        self.log_amounts = np.zeros((tables, _LOG_START), dtype=np.int64)
        self.log_length = np.zeros(tables, dtype=np.int64)
        seat_range = np.arange(seats)
        # The seats in turn from seat s (row s), after seat s, and from the left of seat s.
        self._from = (seat_range[:, None] + seat_range) % seats
        self._after = (seat_range[:, None] + seat_range + 1) % seats
        self._left_of = (seat_range - seat_range[:, None] - 1) % seats  # places after s
        self._dealt = np.array([1, 2, 3, 5, 7]) + 2 * seats
        # By the button: each seat's two hole cards' places in the deck (dealt in turn from
        # the left of the button, a round a card), the blinds posted (heads-up the button
        # posts the small blind; every seat has the cap, at least the big blind, so both
        # are posted in full), and the first to act before the flop.
        self._hole_places = np.stack((self._left_of, self._left_of + seats), axis=2)
        small = seat_range if seats == 2 else (seat_range + 1) % seats
        self._blinds = np.zeros((seats, seats), dtype=np.int64)
        self._blinds[seat_range, small] = self.small_blind
        self._blinds[seat_range, (small + 1) % seats] = self.big_blind
        self._first = (small + 2) % seats
        self._waiting: list[np.ndarray] = []  # rows whose legal actions are to be found

    @property
    def available(self) -> np.ndarray:
        """Chips each seat can still commit this deal (the cap graphic)."""
        return self.cap - self.committed

    # -- dealing ---------------------------------------------------------------------

    def start(
        self, rows: np.ndarray, decks: np.ndarray, buttons: np.ndarray, *, update: bool = True
    ) -> None:
        """Deal a new hand at each of ``rows`` from its deck (at least the top ``2 x seats
        + 8`` cards, as :func:`~dp_arena.engine.deal_cards` deals them), with its button,
        post the blinds and open the betting, every seat with the cap. With ``update``
        false the legal actions are found only by the next :meth:`update_legal`."""
        seats = self.seat_count
        places = self._hole_places.take(buttons, axis=0)  # (rows, seats, 2)
        places += np.arange(0, decks.size, decks.shape[1])[:, None, None]
        self.hole_cards[rows] = decks.reshape(-1).take(places)
        self.board[rows] = decks.take(self._dealt, axis=1)  # burn, flop x3, burn, turn, ...
        self.button[rows] = buttons
        committed = self._blinds.take(buttons, axis=0)
        self.committed[rows] = committed
        self.street_bets[rows] = committed
        self.folded[rows] = False
        self.raises[rows] = 0
        self.action_chips[rows] = 0
        if self.preflop:
            self.preflop_calls[rows] = 0
            self.preflop_raiser[rows] = NO_ACTOR
        self.log_length[rows] = 0
        self.street[rows] = _PREFLOP
        self.largest_increment[rows] = 0
        self.live[rows] = seats
        self.current_bet[rows] = self.big_blind
        first = self._first.take(buttons)
        if self.cap > self.big_blind:
            # Every seat can still put chips in: the betting opens, left of the big blind.
            self.acted[rows] = False
            self._to_act(rows, first)
        else:
            opened, heads, shown = self._open_betting(rows, first)
            self._to_act(opened, heads)
            if shown.size:  # everyone all-in from the blinds
                self.actor[shown] = NO_ACTOR
                self._settle(shown)
        if update:
            self.update_legal()

    # -- acting ----------------------------------------------------------------------

    def apply(
        self,
        rows: np.ndarray,
        kinds: np.ndarray,
        amounts: np.ndarray,
        *,
        update: bool = True,
        checked: bool = False,
    ) -> None:
        """Apply, at each of ``rows``, action ``kinds`` (``FOLD``, ``CHECK``, ``CALL``,
        ``RAISE``) of its player to act, a raise to ``amounts``; all are checked before
        any is applied, unless the caller vouches for them (``checked``: the batch's
        discrete actions, translated from answers it checked against the masks). With
        ``update`` false the legal actions of the next players are found only by the
        next :meth:`update_legal` (which a caller that also deals new hands calls once
        for both)."""
        if self._waiting:
            raise AssertionError("TableBatch.apply: update_legal() was not called")
        seat = self.actor[rows]
        raising = kinds == RAISE
        raisers = raising.nonzero()[0]
        if raisers.size:
            raised = rows[raisers]
            amount = amounts[raisers]
        if not checked:
            self._check(rows, kinds, amounts, raisers)
        street = self.street[rows]
        current_bet = self.current_bet[rows]
        cells = rows * self.seat_count + seat  # each acting seat in the flat seat arrays
        chips = self.call_amount[rows] * (kinds == CALL)
        if raisers.size:
            largest = self.largest_increment[raised]
            increment = amount - current_bet[raisers]
            chips[raisers] = amount - self.street_bets.reshape(-1)[cells[raisers]]
            full = increment >= np.maximum(largest, self.big_blind)  # reopens the betting
            if np.count_nonzero(full):
                self.acted[raised[full]] = False
            self.largest_increment[raised] = np.maximum(largest, increment)
            current_bet[raisers] = amount
            self.current_bet[raised] = amount
        folders = (kinds == FOLD).nonzero()[0]
        if folders.size:
            self.folded.reshape(-1)[cells[folders]] = True
            self.live[rows[folders]] -= 1
        self.committed.reshape(-1)[cells] += chips
        self.street_bets.reshape(-1)[cells] += chips
        self.acted.reshape(-1)[cells] = True
        history = (rows * 4 + street) * self.seat_count + seat  # in the (tables, 4, seats) arrays
        if raisers.size:
            self.raises.reshape(-1)[history[raisers]] += 1
        self.action_chips.reshape(-1)[history] += chips
        if self.preflop:
            preflop = street == _PREFLOP
            calling = (preflop & (kinds == CALL)).nonzero()[0]
            if calling.size:
                self.preflop_calls[rows[calling]] += 1
            opening = (preflop & raising).nonzero()[0]
            if opening.size:
                self.preflop_raiser[rows[opening]] = seat[opening]
        self._log(rows, kinds, amounts * raising)
        self._advance(rows, seat, current_bet)
        if update:
            self.update_legal()

    def _check(
        self, rows: np.ndarray, kinds: np.ndarray, amounts: np.ndarray, raisers: np.ndarray
    ) -> None:
        """Refuse the actions (``raisers``: the lines of the raises) unless each is legal
        at its table; nothing has changed yet."""
        allowed = (self.permissions[rows] >> (RAISE - kinds)) & 1
        if raisers.size:
            raised = rows[raisers]
            amount = amounts[raisers]
            allowed[raisers] &= (amount >= self.min_raise_to[raised]) & (
                amount <= self.max_raise_to[raised]
            )
        if np.count_nonzero(allowed) != rows.size:
            index = int((allowed == 0).nonzero()[0][0])
            raise IllegalActionError(
                IllegalReason.UNKNOWN_ACTION,
                f"table {int(rows[index])}: action kind {int(kinds[index])}"
                f" ({int(amounts[index])}) is not legal now",
                action=int(kinds[index]),
            )

    def _log(self, rows: np.ndarray, kinds: np.ndarray, amounts: np.ndarray) -> None:
        length = self.log_length[rows]
        if int(length.max()) >= self.log_kinds.shape[1]:
            grow = self.log_kinds.shape[1]
            self.log_kinds = np.pad(self.log_kinds, ((0, 0), (0, grow)))
            self.log_amounts = np.pad(self.log_amounts, ((0, 0), (0, grow)))
        entries = rows * self.log_kinds.shape[1] + length
        self.log_kinds.reshape(-1)[entries] = kinds
        self.log_amounts.reshape(-1)[entries] = amounts
        self.log_length[rows] = length + 1

    def _to_act(self, rows: np.ndarray, seat: np.ndarray) -> None:
        """Make ``seat`` the player to act at ``rows``; its legal actions wait for
        :meth:`update_legal`."""
        self.actor[rows] = seat
        self._waiting.append(rows)

    def update_legal(self) -> None:
        """Find the legal actions of the players who came to act since the last call."""
        if not self._waiting:
            return
        rows = self._waiting[0] if len(self._waiting) == 1 else np.concatenate(self._waiting)
        self._waiting = []
        self._legal(rows, self.actor[rows])

    def _legal(self, rows: np.ndarray, seat: np.ndarray) -> None:
        """The legal actions of ``seat``, to act at ``rows`` (``betting.legal_actions``;
        the bet to match is the current bet: the big blind is never short here)."""
        street_bets = self.street_bets.take(rows, axis=0)
        committed = self.committed.take(rows, axis=0)
        current_bet = self.current_bet[rows]
        own = _cells(street_bets, seat)
        bet = street_bets.reshape(-1).take(own)
        available = self.cap - committed.reshape(-1).take(own)
        largest = self.largest_increment[rows]
        owed = np.maximum(current_bet - bet, 0)
        call_amount = np.minimum(available, owed)
        full_raise = np.maximum(largest, self.big_blind)
        # Someone else still in could put in more than the current bet (what a seat can
        # reach is its street bet plus what it has left: the cap less its deal's total).
        could_call = (street_bets - committed > (current_bet - self.cap)[:, None]) > (
            self.folded.take(rows, axis=0)
        )
        could_call.reshape(-1)[own] = False
        can_raise = (
            (call_amount >= largest)
            & (available > owed)
            & ~(self.acted.reshape(-1).take(rows * self.seat_count + seat) & (owed < full_raise))
            & row_any(could_call)
        )
        all_in_to = bet + available
        min_raise_to = np.minimum(all_in_to, current_bet + full_raise)
        max_raise_to = all_in_to
        if self.pot_limit:
            pot_to = 2 * current_bet - bet + row_sums(committed)
            max_raise_to = np.minimum(all_in_to, np.maximum(min_raise_to, pot_to))
        self.owed[rows] = owed
        self.call_amount[rows] = call_amount
        self.can_raise[rows] = can_raise
        self.min_raise_to[rows] = min_raise_to
        self.max_raise_to[rows] = max_raise_to
        self.permissions[rows] = (
            np.where(owed > 0, _FOLD_BIT, _CHECK_BIT)
            + np.where(call_amount > 0, _CALL_BIT, 0)
            + can_raise
        )

    # -- moving on -------------------------------------------------------------------

    def _advance(self, rows: np.ndarray, last: np.ndarray, current_bet: np.ndarray) -> None:
        """The next player to act after ``last``, or the end of the street or the hand."""
        alone = self.live[rows] == 1
        settled = rows[alone]
        if settled.size:
            playing = ~alone
            rows, last, current_bet = rows[playing], last[playing], current_bet[playing]
        # Still able to put chips in (not all-in), and neither folded nor done for the
        # street (acted, with the current bet matched); ``a > b`` is ``a and not b``.
        done = self.folded.take(rows, axis=0) | (
            self.acted.take(rows, axis=0)
            & (self.street_bets.take(rows, axis=0) >= current_bet[:, None])
        )
        to_act = (self.committed.take(rows, axis=0) < self.cap) > done
        following, found = first_in_turn(to_act, self._after.take(last, axis=0))
        if np.count_nonzero(found) < rows.size:
            ended = rows[~found]
            rows, following = rows[found], following[found]
            dealt, shown = self._next_street(ended)
            opened, heads, runouts = self._open_street(dealt)
            rows = np.concatenate((rows, opened))
            following = np.concatenate((following, heads))
            settled = np.concatenate((settled, shown, runouts))
        self._to_act(rows, following)
        if settled.size:
            self.actor[settled] = NO_ACTOR
            self._settle(settled)

    def _open_street(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_open_betting` for a street after the flop is dealt, where no one has bet
        yet: the round is played when two or more players still in can put chips in,
        first the first of them from the left of the button; otherwise no later round can
        be (nothing changes), and the board is dealt to the showdown. The rows opened, their
        first player, and those at the showdown (settled by the caller)."""
        can_act = ~self.folded.take(rows, axis=0) & (self.committed.take(rows, axis=0) < self.cap)
        self.acted[rows] = ~can_act
        head, _ = first_in_turn(can_act, self._after.take(self.button[rows], axis=0))
        opened = row_sums(can_act.view(np.int8)) > 1
        if np.count_nonzero(opened) == rows.size:
            return rows, head, rows[:0]
        shown = rows[~opened]
        self.acted[shown] = True
        self.street[shown] = _SHOWDOWN
        return rows[opened], head[opened], shown

    def _open_betting(
        self, rows: np.ndarray, first: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start a betting round at ``rows`` with ``first`` first in turn, or deal on to
        the showdown where it cannot be played: the rows whose round opened, their first
        player to act, and the rows that reached the showdown (settled by the caller)."""
        opened_rows = []
        heads = []
        shown_rows = []
        while rows.size:
            lines = np.arange(rows.size)
            folded = self.folded[rows]
            street_bets = self.street_bets[rows]
            available = self.cap - self.committed[rows]
            totals = np.where(folded, -1, street_bets + available)
            second_largest = np.sort(totals, axis=1)[:, -2]
            # A player who cannot lose more chips (everyone else is all-in for less) sits out.
            can_act = ~folded & (available > 0) & (second_largest[:, None] > street_bets)
            self.acted[rows] = ~can_act
            order = self._from[first]
            in_turn = can_act[lines[:, None], order]
            count = in_turn.sum(axis=1)
            head = order[lines, in_turn.argmax(axis=1)]
            opened = (count > 1) | (
                (count == 1) & (street_bets[lines, head] < self.current_bet[rows])
            )
            if np.count_nonzero(opened) == rows.size:
                opened_rows.append(rows)
                heads.append(head)
                break
            opened_rows.append(rows[opened])
            heads.append(head[opened])
            rows, shown = self._next_street(rows[~opened])
            shown_rows.append(shown)
            first = self._after[self.button[rows], 0]
        empty = np.zeros(0, dtype=np.int64)
        return (
            np.concatenate(opened_rows) if opened_rows else empty,
            np.concatenate(heads) if heads else empty,
            np.concatenate(shown_rows) if shown_rows else empty,
        )

    def _next_street(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Close the street's bets at ``rows`` and deal the next street: the rows dealt on,
        and those that played the river (now at the showdown, to be settled)."""
        self.street_bets[rows] = 0
        self.current_bet[rows] = 0
        self.largest_increment[rows] = 0
        self.actor[rows] = NO_ACTOR
        street = self.street[rows] + 1
        self.street[rows] = street  # after the river: the showdown
        river = street == _SHOWDOWN
        return rows[~river], rows[river]

    def _settle(self, rows: np.ndarray) -> None:
        """Award the pot at ``rows`` (``showdown.settle``) and set the payoffs: to the one
        player left, or shared by the best hands, odd chips one at a time to the winners
        from the left of the button."""
        committed = self.committed.take(rows, axis=0)
        folded = self.folded.take(rows, axis=0)
        live = self.live[rows]
        # Each player still in put in at most the most any did: all the same when their
        # sum is that many times the most (a side pot: only with unequal stacks).
        in_hand = np.where(folded, 0, committed)
        if np.count_nonzero(row_sums(in_hand) != row_max(in_hand) * live):
            raise AssertionError("TableBatch: players in the hand put in unequal totals")
        pot = row_sums(committed)
        # The hands shown: those still in where two or more are (one player left wins with
        # any hand).
        contested = ~folded & (live > 1)[:, None]
        cells = contested.reshape(-1).nonzero()[0]  # (line, seat) as line x seats + seat
        if not cells.size:  # one player left at every table: the pot is theirs
            self.payoffs[rows] = ~folded * pot[:, None] - committed
            return
        # The values of the hands shown; a folded hand is below the worst, and one not
        # shown (its table's only player left) the best.
        values = folded * _WORST
        lines, seats = np.divmod(cells, self.seat_count)
        shown = rows.take(lines)
        holes = self.hole_cards.reshape(-1, 2).take(shown * self.seat_count + seats, axis=0)
        values.reshape(-1)[cells] = hand_values(
            np.concatenate((holes, self.board.take(shown, axis=0)), axis=1)
        )
        best = values.reshape(-1).take(_cells(values, values.argmin(axis=1)))
        winners = values == best[:, None]
        share, odd_chips = np.divmod(pot, row_sums(winners.view(np.int8)))
        won = winners * share[:, None]
        odd = odd_chips.nonzero()[0]
        if odd.size:
            turn = self._left_of[self.button[rows[odd]]]
            split = winners[odd]
            ahead = (split[:, None, :] & (turn[:, None, :] < turn[:, :, None])).sum(axis=2)
            won[odd] += split & (ahead < odd_chips[odd, None])
        self.payoffs[rows] = won - committed
