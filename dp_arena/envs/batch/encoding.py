"""The observation vectors and action masks of one seat at every table of a
:class:`~dp_arena.envs.batch.engine.TableBatch`, as arrays: row ``i`` is what
:func:`dp_arena.envs.encoding.encode_state` and the discrete actions' mask give for
table ``i`` (the same float64 arithmetic, rounded to float32 once).

>>> import numpy as np
>>> from dp_arena.engine import Betting, TableRules, deck_for, new_hand
>>> from dp_arena.envs.batch.engine import TableBatch
>>> from dp_arena.envs.encoding import encode_state
>>> rules = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
>>> batch = TableBatch(rules, tables=1)
>>> batch.start(np.array([0]), np.array([deck_for(1, 0, 0, 0)]), np.array([0]))
>>> vectors = encode_batch(batch, 0, np.array([0]), 2, np.array([0]))
>>> hand = new_hand(rules, deck_for(1, 0, 0, 0), button=0)
>>> np.array_equal(vectors[0], np.array(encode_state(hand, 0, 0, 2, 0), dtype=np.float32))
True
>>> batch_masks(batch, 0, 6).tolist()
[[1, 1, 1, 1, 1, 1]]
"""

from __future__ import annotations

import functools

import numpy as np

from dp_arena.envs.batch.engine import TableBatch, row_max, row_sums
from dp_arena.envs.encoding import BOARD_START as _BOARD
from dp_arena.envs.encoding import HISTORY_RAISES_CAP, observation_length
from dp_arena.envs.encoding import PER_SEAT as _PER_SEAT
from dp_arena.envs.encoding import POSITION_START as _POSITION
from dp_arena.envs.encoding import SCALARS as _SCALARS
from dp_arena.envs.encoding import STREET_START as _STREET

__all__ = ["batch_masks", "encode_batch", "encode_rows", "row_masks"]

_BOARD_SIZES = np.array([0, 3, 4, 5, 5])  # visible board cards by street
# Whether board card c is shown at street s (entry [c, s]), and min(raises, cap) / cap.
_SHOWN_BOARD = np.arange(5)[:, None] < _BOARD_SIZES
_RAISE_SHARES = (np.arange(HISTORY_RAISES_CAP + 1) / HISTORY_RAISES_CAP).astype(np.float32)


@functools.cache
def _street_entries(length: int) -> np.ndarray:
    """The street's one-hot entry by street: none once the deal is over (``length``,
    the spare row of :func:`encode_rows`)."""
    return np.array([*range(_STREET, _STREET + 4), length])


@functools.cache
def _masks(actions: int) -> np.ndarray:
    """The action mask over ``actions`` discrete actions by the permission bits of the
    kinds allowed (fold 8, raise 1): fold when owed, check/call, the raises."""
    masks = np.ones((16, actions), dtype=np.int8)
    bits = np.arange(16)
    masks[:, 0] = (bits & 8) > 0
    masks[:, 2:] = (bits & 1)[:, None]
    return masks


@functools.cache
def _relative(seats: int) -> np.ndarray:
    """Relative seat r of an observer at seat s: ``(s + r) % seats``, at [r, s]."""
    seat_range = np.arange(seats)
    relative: np.ndarray = (seat_range[:, None] + seat_range) % seats
    return relative


def encode_batch(
    batch: TableBatch,
    seat: int,
    deal_numbers: np.ndarray,
    deals_in_session: int,
    session_nets: np.ndarray,
) -> np.ndarray:
    """Every table's vector for ``seat``, shape ``(tables, length)`` (float32), given
    each table's deal number and ``seat``'s session net before the deal."""
    tables, seats = batch.tables, batch.seat_count
    length = observation_length(seats)
    values = np.zeros((tables, length), dtype=np.float32)
    scale = 1.0 / batch.cap
    # The one-hot entries of each row, at once (as in encode_rows).
    street = batch.street
    hot = np.empty((tables, 9), dtype=np.int64)
    hot[:, :2] = batch.hole_cards[:, seat]
    hot[:, 2:7] = _BOARD + batch.board
    hot[:, 7] = _STREET + street
    hot[:, 8] = _POSITION + (seat - batch.button) % seats
    shown = np.ones((tables, 9), dtype=bool)
    shown[:, 2:7] = np.arange(5) < _BOARD_SIZES[street][:, None]
    shown[:, 7] = street < 4
    values.reshape(-1)[(hot + (np.arange(tables) * length)[:, None])[shown]] = 1.0
    to_act = batch.actor == seat
    raising = to_act & batch.can_raise
    committed = batch.committed
    deals = deals_in_session if deals_in_session > 0 else 1
    bound = seats - 1
    scalars = _POSITION + seats
    values[:, scalars] = row_sums(committed) * scale
    values[:, scalars + 1] = batch.call_amount * to_act * scale
    values[:, scalars + 2] = batch.current_bet * scale
    values[:, scalars + 3] = batch.min_raise_to * raising * scale
    values[:, scalars + 4] = batch.max_raise_to * raising * scale
    values[:, scalars + 5] = (batch.cap - row_max(committed)) * scale
    values[:, scalars + 6] = (seats - row_sums(batch.folded.view(np.int8))) / seats
    values[:, scalars + 7] = np.minimum(deal_numbers, deals) / deals
    values[:, scalars + 8] = np.minimum(np.maximum(session_nets * scale / deals, -bound), bound)
    # Seats relative to the observer: relative seat r is seat ``seat + r`` (the seats in
    # their own order for seat 0, not gathered).
    relative = (seat + np.arange(seats)) % seats
    folded = batch.folded
    street_bets = batch.street_bets
    raises = batch.raises
    action_chips = batch.action_chips
    if seat:
        committed = committed.take(relative, axis=1)
        folded = folded.take(relative, axis=1)
        street_bets = street_bets.take(relative, axis=1)
        raises = raises.take(relative, axis=2)
        action_chips = action_chips.take(relative, axis=2)
    first = scalars + _SCALARS
    per_seat = values[:, first : first + _PER_SEAT * seats].reshape(tables, seats, _PER_SEAT)
    per_seat[:, :, 0] = committed * scale
    per_seat[:, :, 1] = (batch.cap - committed) * scale
    per_seat[:, :, 2] = street_bets * scale
    per_seat[:, :, 3] = folded
    # Absent: never at these tables (0).
    history_base = first + _PER_SEAT * seats
    history = values[:, history_base : history_base + 8 * seats].reshape(tables, 4, seats, 2)
    history[..., 0] = _RAISE_SHARES.take(raises, mode="clip")
    history[..., 1] = action_chips * scale
    return values


def batch_masks(batch: TableBatch, seat: int, actions: int) -> np.ndarray:
    """Every table's action mask for ``seat`` over ``actions`` discrete actions (int8):
    fold when something is owed, check/call, the raises when raising is allowed; all
    zeros where ``seat`` is not to act."""
    to_act = batch.actor == seat
    masks = np.zeros((batch.tables, actions), dtype=np.int8)
    masks[:, 0] = to_act & (batch.owed > 0)
    masks[:, 1] = to_act
    masks[:, 2:] = (to_act & batch.can_raise)[:, None]
    return masks


def encode_rows(
    batch: TableBatch,
    rows: np.ndarray,
    seats: np.ndarray,
    deal_numbers: np.ndarray,
    deals_in_session: int,
    session_nets: np.ndarray,
) -> np.ndarray:
    """The vector of ``seats[i]`` at table ``rows[i]``, for each ``i``, shape
    ``(len(rows), length)``: :func:`encode_batch` for a different seat at each row (the
    opponents of the vector environment that are policies over these vectors), given
    each row's deal number and that seat's session net before the deal. (Written entry by
    entry over all rows, in a Fortran-ordered array: every write is contiguous.)"""
    count, table_seats = rows.size, batch.seat_count
    length = observation_length(table_seats)
    # One row more than the vector: the one-hot entries not shown (the board cards not
    # dealt yet, the street once the deal is over) are written there, and left out.
    columns = np.zeros((length + 1, count), dtype=np.float32)
    entries = columns.reshape(-1)  # entry (index, line) at index x count + line
    scale = 1.0 / batch.cap
    # (Rows are gathered with ``take`` and flat indices, which NumPy does several times
    # faster than fancy indexing of the 2-D and 3-D arrays.)
    # The one-hot entries of each row, at once: its hole cards, the board cards shown,
    # the street (none once the deal is over) and its position.
    street = batch.street[rows]
    hot = np.empty((9, count), dtype=np.int64)
    hot[:2] = batch.hole_cards.reshape(-1, 2).take(rows * table_seats + seats, axis=0).T
    hot[2:7] = np.where(
        _SHOWN_BOARD.take(street, axis=1), batch.board.take(rows, axis=0).T + _BOARD, length
    )
    hot[7] = _street_entries(length).take(street)
    hot[8] = (seats - batch.button[rows]) % table_seats
    hot[8] += _POSITION
    hot *= count
    hot += np.arange(count)
    entries[hot] = 1.0
    to_act = batch.actor[rows] == seats
    raising = to_act & batch.can_raise[rows]
    # The numbers in chips (scaled at once below): the pot, to call, the current bet, the
    # raise bounds, the cap graphic.
    chips = np.empty((6, count), dtype=np.int64)
    # Seats relative to each observer: relative seat r of row i is seats[i] + r, at
    # ``around[r, i]`` in the flat (tables, seats) arrays (seats first: the writes below
    # are then contiguous).
    around = _relative(table_seats).take(seats, axis=1)
    around += rows * table_seats
    committed = batch.committed.reshape(-1).take(around)
    folded = batch.folded.reshape(-1).take(around)
    deals = deals_in_session if deals_in_session > 0 else 1
    bound = table_seats - 1
    scalars = _POSITION + table_seats
    np.add.reduce(committed, axis=0, out=chips[0])
    np.multiply(batch.call_amount[rows], to_act, out=chips[1])
    chips[2] = batch.current_bet[rows]
    np.multiply(batch.min_raise_to[rows], raising, out=chips[3])
    np.multiply(batch.max_raise_to[rows], raising, out=chips[4])
    np.subtract(batch.cap, np.maximum.reduce(committed, axis=0), out=chips[5])
    columns[scalars : scalars + 6] = chips * scale
    columns[scalars + 6] = (table_seats - np.add.reduce(folded, axis=0, dtype=np.int64)) / (
        table_seats
    )
    columns[scalars + 7] = np.minimum(deal_numbers, deals) / deals
    # Clipped to the bounds (np.clip's own checks cost more than its two ufuncs).
    columns[scalars + 8] = np.minimum(np.maximum(session_nets * scale / deals, -bound), bound)
    first = scalars + _SCALARS
    per_seat = columns[first : first + _PER_SEAT * table_seats].reshape(
        table_seats, _PER_SEAT, count
    )
    per_seat[:, 0] = committed * scale
    per_seat[:, 1] = (batch.cap - committed) * scale
    per_seat[:, 2] = batch.street_bets.reshape(-1).take(around) * scale
    per_seat[:, 3] = folded
    history_base = first + _PER_SEAT * table_seats
    history = columns[history_base : history_base + 8 * table_seats].reshape(
        4, table_seats, 2, count
    )
    # In the flat (tables, 4, seats) arrays: table t, street s, seat k at (4 t + s) seats + k,
    # that is t seats + k (``around``) plus 3 t seats + s seats.
    around += rows * (3 * table_seats)
    by_street = around + (np.arange(4) * table_seats)[:, None, None]
    # min(raises, cap) / cap, read from a table (``take`` clips to its last entry).
    history[:, :, 0] = _RAISE_SHARES.take(batch.raises.reshape(-1).take(by_street), mode="clip")
    history[:, :, 1] = batch.action_chips.reshape(-1).take(by_street) * scale
    return columns[:length].T


def row_masks(batch: TableBatch, rows: np.ndarray, actions: int) -> np.ndarray:
    """The action masks of the players to act at ``rows`` over ``actions`` discrete
    actions (int8): :func:`batch_masks` of each row's actor."""
    masks: np.ndarray = _masks(actions).take(batch.permissions[rows], axis=0)
    return masks
