"""Features of decisions read from the environments' observation vectors, for many
decisions at once: what the ``learned`` bot's linear policy weighs, computed the same way
whether a match asks about one decision (its observation encoded as the environment
encodes it) or the vector environment's batch about hundreds (a snapshot of the policy
as an opponent), so that the bot plays in the batch exactly as at a table.

The hand's strength: before the flop, its equity against as many random hands as there
are opponents still in (1 to 4; the table of :mod:`dp_arena.learn.preflop_table`); after
it, its equity against one random hand raised to the number of opponents, the equity
estimated over a fixed set of :data:`ROLLOUTS` rollouts of an opponent's two cards and
the board to come (the same positions among the cards left for every decision, so the
same situation always gets the same estimate, in a batch as alone; exact on the river),
and beside it the share of every possible opponent holding it beats now (as the ``tag``
bot measures it) and the chance that a flush or open-ended straight draw completes.
Then the pot odds, the bet to face, the pot and the stack behind relative to
the cap, the street, the position, the raises of the street, the opponents in the hand,
an all-in to face and what is already committed, with hinges on the strength so that a
linear model can bend where a hand's strength changes what is worth doing. Each feature
appears twice, once for heads-up tables and once for bigger ones (:data:`FEATURE_NAMES`).

Only IEEE-exact operations (sums, products, quotients, comparisons) are done on each row,
in a fixed order, so a row's features do not depend on the other rows of its batch.

>>> import numpy as np
>>> from dp_arena.agents import SessionContext, observe
>>> from dp_arena.engine import Betting, TableRules, deck_for, new_hand
>>> from dp_arena.envs.encoding import encode
>>> rules = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
>>> hand = new_hand(rules, deck_for(1, 0, 0, 0), button=0)
>>> vector = encode(observe(hand, 0, SessionContext(deals_in_session=2)))
>>> rows = features(np.stack([vector, vector]))
>>> rows.shape, bool((rows[0] == rows[1]).all()), len(FEATURE_NAMES)
((2, 60), True, 60)
"""

from __future__ import annotations

import functools

import numpy as np

from dp_arena.envs.batch.cards import board_values, draw_odds, hand_values, strength_counts
from dp_arena.learn.features import EQUITY_HINGES, TABLE_FEATURES, by_table_size
from dp_arena.learn.preflop_table import PREFLOP_HALF_POINTS

__all__ = ["BASE_FEATURES", "FEATURE_NAMES", "features", "seat_count"]

BASE_FEATURES = (
    "bias",
    "strength",
    *(f"strength_above_{hinge:g}" for hinge in EQUITY_HINGES),
    "pot_odds",
    "strength_minus_pot_odds",
    *TABLE_FEATURES,
    "strength_when_raised",
    "strength_when_facing_all_in",
    "committed_over_cap",
    "draw_odds",
    "draw_odds_minus_pot_odds",
    "strength_now",
)
FEATURE_NAMES = by_table_size(BASE_FEATURES)
_MAX_OPPONENTS = 4
_BOARD, _STREET, _POSITION = 52, 104, 108
ROLLOUTS = 48


@functools.cache
def _patterns(size: int) -> np.ndarray:
    """For a board of ``size`` cards (3 or 4): the positions, among the cards left
    (sorted), of each rollout's opponent cards and cards to come. Fixed, from a fixed seed;
    made at the first use, so that importing the policy bot loads no random generator (a
    sandboxed bot's template imports it, and must leave NumPy's generators to each seat)."""
    generator = np.random.default_rng(size)
    return np.array([generator.permutation(50 - size)[: 2 + 5 - size] for _ in range(ROLLOUTS)])


# Pre-flop equity (a share) by the two hole cards and opponents - 1: the table's half
# points over 2,000, as dp_arena.learn.features.preflop_equity reads them.
_PREFLOP = np.zeros((52, 52, _MAX_OPPONENTS), dtype=np.float64)
for _first in range(52):
    for _second in range(52):
        if _first != _second:
            _high, _low = sorted((_first >> 2, _second >> 2), reverse=True)
            _class = (_high, _low, (_first & 3) == (_second & 3))
            _PREFLOP[_first, _second] = np.array(PREFLOP_HALF_POINTS[_class]) / 2000


def seat_count(length: int) -> int:
    """The number of seats of the table whose vectors have ``length`` entries."""
    seats, remainder = divmod(length - 117, 14)
    if remainder or not 2 <= seats <= 10:
        raise ValueError(f"not an observation vector's length: {length}")
    return seats


def features(observations: np.ndarray) -> np.ndarray:
    """The features (:data:`FEATURE_NAMES`) of the decision of each row of
    ``observations`` (vectors of :mod:`dp_arena.envs.encoding`, all of one table size),
    shape ``(rows, features)``, float64."""
    rows, length = observations.shape
    seats = seat_count(length)
    values = observations.astype(np.float64)
    scalars = _POSITION + seats
    pot, to_call = values[:, scalars], values[:, scalars + 1]
    committed, available = values[:, scalars + 9], values[:, scalars + 10]
    live = np.rint(values[:, scalars + 6] * seats).astype(np.int64)
    opponents = np.maximum(live - 1, 1)
    street_flags = values[:, _STREET : _STREET + 4]
    street = np.where(street_flags.any(axis=1), street_flags.argmax(axis=1), 3)
    holes = np.sort(np.argsort(-values[:, :52], axis=1, kind="stable")[:, :2], axis=1)
    strength = np.zeros(rows, dtype=np.float64)
    strength_now = np.zeros(rows, dtype=np.float64)
    draws = np.zeros(rows, dtype=np.float64)
    preflop = street == 0
    lines = preflop.nonzero()[0]
    if lines.size:
        strength[lines] = _PREFLOP[
            holes[lines, 0], holes[lines, 1], np.minimum(opponents[lines], _MAX_OPPONENTS) - 1
        ]
        strength_now[lines] = strength[lines]
    for size in (3, 4, 5):
        lines = (street == size - 2).nonzero()[0]
        if not lines.size:
            continue
        board_flags = values[lines, _BOARD : _BOARD + 52]
        boards = np.sort(np.argsort(-board_flags, axis=1, kind="stable")[:, :size], axis=1)
        board_table, possible = board_values(boards)
        beaten, tied, pairs = strength_counts(
            board_table, possible, holes[lines], np.full(lines.size, size)
        )
        now = (beaten + tied / 2) / pairs
        single = now if size == 5 else _rollout_equity(holes[lines], boards)
        strength[lines] = _powered(single, opponents[lines])
        strength_now[lines] = _powered(now, opponents[lines])
        padded = np.zeros((lines.size, 5), dtype=np.int64)
        padded[:, :size] = boards
        draws[lines] = draw_odds(holes[lines], padded, np.full(lines.size, size - 2))
    pot_after_call = pot + to_call
    pot_odds = np.where(to_call > 0, to_call / np.where(pot_after_call > 0, pot_after_call, 1), 0.0)
    history = _POSITION + seats + 9 + 5 * seats
    raises = np.rint(values[:, history : history + 8 * seats : 2] * 3).reshape(rows, 4, seats)
    street_raises = raises[np.arange(rows), np.minimum(street, 3)]
    opponent_raised = (street_raises[:, 1:] > 0).any(axis=1)
    position = values[:, _POSITION : _POSITION + seats].argmax(axis=1)
    facing_all_in = (to_call > 0) & (to_call >= available)
    base = [
        np.ones(rows),
        strength,
        *(np.maximum(0.0, strength - hinge) for hinge in EQUITY_HINGES),
        pot_odds,
        strength - pot_odds,
        np.where(pot > 0, np.minimum(to_call / np.where(pot > 0, pot, 1), 3.0) / 3.0, 0.0),
        np.minimum(pot, 1.0),
        np.where(
            pot_after_call > 0,
            np.minimum(available / np.where(pot_after_call > 0, pot_after_call, 1), 4.0) / 4.0,
            0.0,
        ),
        (street == 0).astype(np.float64),
        (street == 1).astype(np.float64),
        (street == 2).astype(np.float64),
        (street == 3).astype(np.float64),
        (to_call == 0).astype(np.float64),
        (position == 0).astype(np.float64),
        ((position - 1) % seats) / (seats - 1),
        opponent_raised.astype(np.float64),
        np.minimum(street_raises.sum(axis=1), 3) / 3,
        (live - 1) / (seats - 1),
        np.where(opponent_raised, strength, 0.0),
        np.where(facing_all_in, strength, 0.0),
        committed,
        draws,
        draws - pot_odds,
        strength_now,
    ]
    block = np.stack(base, axis=1)
    zeros = np.zeros_like(block)
    if seats == 2:
        return np.concatenate((block, zeros), axis=1)
    return np.concatenate((zeros, block), axis=1)


def _powered(single: np.ndarray, opponents: np.ndarray) -> np.ndarray:
    """``single ** opponents`` (capped at four), by products: exact everywhere."""
    powered = single.copy()
    for power in range(2, _MAX_OPPONENTS + 1):
        powered = np.where(opponents >= power, powered * single, powered)
    return powered


def _rollout_equity(holes: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """Each hand's share of the pot against one random hand over the fixed rollouts of
    its board (of 3 or 4 cards): the rollouts' wins and half ties, counted in integers."""
    rows, size = boards.shape
    known = np.zeros((rows, 52), dtype=bool)
    lines = np.arange(rows)[:, None]
    known[lines, holes] = True
    known[lines, boards] = True
    left = np.argsort(known, axis=1, kind="stable")[:, : 50 - size]  # the cards left, sorted
    drawn = left[:, _patterns(size)]  # (rows, rollouts, 2 + cards to come)
    full = np.concatenate(
        (np.broadcast_to(boards[:, None, :], (rows, ROLLOUTS, size)), drawn[:, :, 2:]), axis=2
    )
    mine = hand_values(
        np.concatenate((np.broadcast_to(holes[:, None, :], (rows, ROLLOUTS, 2)), full), axis=2)
    )
    theirs = hand_values(np.concatenate((drawn[:, :, :2], full), axis=2))
    halves = (2 * (mine < theirs) + (mine == theirs)).sum(axis=1)
    equity: np.ndarray = halves / (2 * ROLLOUTS)
    return equity
