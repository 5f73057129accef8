"""The observation vector: a typed :class:`~dp_arena.agents.Observation` as a float32
NumPy vector of fixed length for a table of ``P`` seats.

Seats are listed *relative to the observer*: relative seat ``r`` is the seat ``r``
places to the observer's left (``r = 0`` is the observer). Chip amounts are divided by
the cap ``C``, so they lie in ``[0, 1]`` (the pot in ``[0, P]``).

| index | values | meaning |
|---|---|---|
| 0 - 51 | 0/1 | own hole cards (card = rank x 4 + suit; rank 0 = deuce .. 12 = ace; suits c, d, h, s) |
| 52 - 103 | 0/1 | board cards visible now |
| 104 - 107 | 0/1 | street: preflop, flop, turn, river (all 0 once the deal is over) |
| 108 - 108+P-1 | 0/1 | position: seats after the button (0 = button) |
| S = 108+P | [0, P] | pot: every chip committed this deal / C |
| S+1 | [0, 1] | to call / C (0: checking is legal) |
| S+2 | [0, 1] | current bet (what everyone must match) / C |
| S+3 | [0, 1] | min raise-to / C (0 when raising is not allowed) |
| S+4 | [0, 1] | max raise-to / C (0 when raising is not allowed) |
| S+5 | [0, 1] | cap graphic: C minus the deal total of the last bettor or raiser, / C |
| S+6 | [0, 1] | players still in the deal / P |
| S+7 | [0, 1] | deal number / deals in the session |
| S+8 | [-(P-1), P-1] | own session net / (C x deals in the session) |
| S+9+5r | [0, 1] | relative seat r: committed this deal / C |
| S+9+5r+1 | [0, 1] | relative seat r: still available this deal / C (the cap graphic) |
| S+9+5r+2 | [0, 1] | relative seat r: bet on this street / C |
| S+9+5r+3 | 0/1 | relative seat r: folded |
| S+9+5r+4 | 0/1 | relative seat r: absent |
| H+2(sP+r) | [0, 1] | history (H = S+9+5P), street s = 0..3, relative seat r: bets and raises made, min(n, 3) / 3 |
| H+2(sP+r)+1 | [0, 1] | history, street s, relative seat r: chips put in by actions (blinds excluded) / C |

Length: ``117 + 14 P`` (145 heads-up, 201 six-handed).

>>> from dp_arena.engine import Betting, TableRules, new_hand, deck_for
>>> from dp_arena.agents import SessionContext, observe
>>> rules = TableRules(seat_count=2, small_blind=10, big_blind=20, betting=Betting.NO_LIMIT)
>>> state = new_hand(rules, deck_for(1, 0, 0, 0), button=0)
>>> vector = encode(observe(state, 0, SessionContext(deals_in_session=2)))
>>> vector.shape, vector.dtype, int(vector[:52].sum())
((145,), dtype('float32'), 2)
>>> round(float(vector[110]) * 1000), round(float(vector[111]) * 1000)  # pot 30, to call 10
(30, 10)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dp_arena.agents.observation import Observation, SessionContext
from dp_arena.engine.actions import ActionKind, ActionRecord, Street
from dp_arena.engine.state import HandState

__all__ = [
    "BOARD_START",
    "HISTORY_RAISES_CAP",
    "PER_SEAT",
    "POSITION_START",
    "SCALARS",
    "STREET_START",
    "encode",
    "encode_hand",
    "encode_state",
    "encode_values",
    "observation_bounds",
    "observation_length",
]

HISTORY_RAISES_CAP = 3
# The layout of the table above, for every encoder of it (the batch's too): where the
# board's cards, the street and the position start, then how many numbers S holds and
# how many each relative seat has.
BOARD_START = 52
STREET_START = 104
POSITION_START = 108
SCALARS = 9
PER_SEAT = 5


def observation_length(seat_count: int) -> int:
    """The length of the vector for a table of ``seat_count`` seats."""
    return POSITION_START + seat_count + SCALARS + PER_SEAT * seat_count + 2 * 4 * seat_count


def observation_bounds(seat_count: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``low`` and ``high`` vectors of the observation's ``Box``."""
    length = observation_length(seat_count)
    low = np.zeros(length, dtype=np.float32)
    high = np.ones(length, dtype=np.float32)
    scalars = POSITION_START + seat_count
    high[scalars] = seat_count  # the pot holds up to every seat's cap
    low[scalars + 8] = -(seat_count - 1)  # a session net is between -C and +(P-1)C a deal
    high[scalars + 8] = seat_count - 1
    return low, high


def encode(observation: Observation) -> np.ndarray:
    """The vector of ``observation`` (see the module's table)."""
    if observation.cap is None:
        raise ValueError("the observation vector needs a capped table (cap is None)")
    values = _encode(
        observation.seat,
        observation.seat_count,
        observation.button,
        observation.cap,
        observation.hole_cards,
        observation.board,
        observation.street,
        observation.pot,
        observation.to_call,
        observation.current_bet,
        observation.min_raise_to,
        observation.max_raise_to,
        observation.cap_gap,
        observation.folded,
        observation.absent,
        observation.committed,
        observation.available,
        observation.street_bets,
        observation.history,
        observation.context.deal_number,
        observation.context.deals_in_session,
        observation.context.session_net,
    )
    return np.array(values, dtype=np.float32)


def encode_hand(hand: HandState, seat: int, context: SessionContext) -> np.ndarray:
    """The vector ``seat`` would get from :func:`encode` of its observation, read straight
    from the hand (the environment's hot path: no :class:`Observation` is built). Only the
    player to act has legal actions; for anyone else ``to_call`` and the raise bounds are 0."""
    return np.array(encode_values(hand, seat, context), dtype=np.float32)


def encode_values(hand: HandState, seat: int, context: SessionContext) -> list[float]:
    """:func:`encode_hand`'s vector as a list of floats, for a caller that fills many
    rows of one array at once (the vector environment)."""
    return encode_state(
        hand, seat, context.deal_number, context.deals_in_session, context.session_net
    )


def encode_state(
    hand: HandState, seat: int, deal_number: int, deals_in_session: int, session_net: int
) -> list[float]:
    """:func:`encode_values` given the three numbers of the context the vector uses (the
    deal number, the deals in the session and the seat's session net before the deal)."""
    cap = hand.rules.cap
    if cap is None:
        raise ValueError("the observation vector needs a capped table (cap is None)")
    if hand.actor == seat:
        legal = hand.legal_actions()
        to_call, min_raise_to, max_raise_to = (
            legal.call_amount,
            legal.min_raise_to,
            legal.max_raise_to,
        )
    else:
        to_call, min_raise_to, max_raise_to = 0, None, None
    hole = hand.hole_cards[seat]
    assert hole is not None
    return _encode(
        seat,
        hand.rules.seat_count,
        hand.button,
        cap,
        hole,
        hand.visible_board,
        hand.street,
        hand.pot_total,
        to_call,
        hand.current_bet,
        min_raise_to,
        max_raise_to,
        cap - max(hand.committed),
        hand.folded,
        hand.absent,
        hand.committed,
        hand.available,
        hand.street_bets,
        hand.history,
        deal_number,
        deals_in_session,
        session_net,
    )


def _encode(
    me: int,
    seat_count: int,
    button: int,
    cap: int,
    hole_cards: tuple[int, int],
    board: Sequence[int],
    street: Street,
    pot: int,
    to_call: int,
    current_bet: int,
    min_raise_to: int | None,
    max_raise_to: int | None,
    cap_gap: int | None,
    folded: Sequence[bool],
    absent: Sequence[bool],
    committed: Sequence[int],
    available: Sequence[int],
    street_bets: Sequence[int],
    history: Sequence[ActionRecord],
    deal_number: int,
    deals_in_session: int,
    session_net: int,
) -> list[float]:
    # Filled as a Python list and converted once: far cheaper than item-wise NumPy writes.
    values = [0.0] * observation_length(seat_count)
    scale = 1.0 / cap
    first, second = hole_cards
    values[first] = 1.0
    values[second] = 1.0
    for card in board:
        values[BOARD_START + card] = 1.0
    if street < Street.SHOWDOWN:
        values[STREET_START + street] = 1.0
    values[POSITION_START + (me - button) % seat_count] = 1.0
    scalars = POSITION_START + seat_count
    deals = deals_in_session if deals_in_session > 0 else 1
    values[scalars : scalars + SCALARS] = (
        pot * scale,
        to_call * scale,
        current_bet * scale,
        (min_raise_to or 0) * scale,
        (max_raise_to or 0) * scale,
        (cap_gap or 0) * scale,
        folded.count(False) / seat_count,
        min(deal_number, deals) / deals,
        max(-(seat_count - 1), min(seat_count - 1, session_net * scale / deals)),
    )
    seats = scalars + SCALARS
    for relative in range(seat_count):
        seat = (me + relative) % seat_count
        base = seats + PER_SEAT * relative
        values[base : base + PER_SEAT] = (
            committed[seat] * scale,
            available[seat] * scale,
            street_bets[seat] * scale,
            1.0 if folded[seat] else 0.0,
            1.0 if absent[seat] else 0.0,
        )
    history_base = seats + PER_SEAT * seat_count
    if history:
        # Counted in integers first, so a sum of chips never rounds past the cap.
        raises = [0] * (4 * seat_count)
        chips = [0] * (4 * seat_count)
        for record in history:
            slot = record.street * seat_count + (record.seat - me) % seat_count
            if record.kind is ActionKind.RAISE:
                raises[slot] += 1
            chips[slot] += record.chips
        for slot in range(4 * seat_count):
            if chips[slot] or raises[slot]:
                values[history_base + 2 * slot] = (
                    min(raises[slot], HISTORY_RAISES_CAP) / HISTORY_RAISES_CAP
                )
                values[history_base + 2 * slot + 1] = chips[slot] * scale
    return values
