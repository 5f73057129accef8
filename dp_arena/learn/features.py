"""Hand-crafted features of a decision for the linear policy: hand equity (with hinges,
so that a linear model can bend where a hand's strength changes what is worth doing),
pot odds, bet pressure, the pot and the stack behind, street, position, the raises of
the street, an all-in to face, what is already committed; each once for heads-up tables
and once for bigger ones (:data:`FEATURE_NAMES`), so that the two games get their own
weights. They are computed from the typed :class:`~dp_arena.agents.Observation` (so a
bot in a match computes exactly what the learner saw in training).

Equity is the chance of winning at showdown against as many random hands as there are
opponents still in the deal (ties count half), estimated by Monte-Carlo rollouts of the
unseen cards. The rollouts are seeded from the cards themselves, so the same situation
always gets the same estimate, in any process. Pre-flop estimates depend only on the hand
class (169 of them) and the number of opponents (1 to 4), so they are made once, ahead,
by ``scripts/preflop_table.py``: :mod:`dp_arena.learn.preflop_table` holds each as this
module would estimate it, and no process pays for them (a sandboxed seat, which starts
with nothing remembered, would otherwise spend about 10 ms on each class it is dealt).

>>> from dp_arena.engine import parse_cards
>>> 0.80 < equity(parse_cards("AsAh"), (), opponents=1, samples=2000) < 0.90  # exactly 0.852
True
>>> equity(parse_cards("7c2d"), parse_cards("AsKsQs"), opponents=1, samples=400) < 0.3
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from dp_arena.agents.observation import Observation
from dp_arena.engine.actions import ActionKind, Street
from dp_arena.engine.cards import Card
from dp_arena.engine.evaluator import evaluate
from dp_arena.learn.preflop_table import PREFLOP_HALF_POINTS

__all__ = [
    "BASE_FEATURES",
    "FEATURE_NAMES",
    "POSTFLOP_SAMPLES",
    "PREFLOP_SAMPLES",
    "equity",
    "estimate_preflop_equity",
    "features",
    "preflop_class",
    "preflop_classes",
    "preflop_equity",
]

# Hinge points of the equity: max(0, equity - k) lets a linear model bend where the
# hand's strength changes what is worth doing.
EQUITY_HINGES = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
# The features of the betting and the table, the same whatever measures the hand's
# strength (its equity here, a strength read off the cards in vector_features).
TABLE_FEATURES = (
    "bet_pressure",
    "pot_over_cap",
    "stack_over_pot",
    "preflop",
    "flop",
    "turn",
    "river",
    "can_check",
    "button",
    "position",
    "opponent_raised_this_street",
    "raises_this_street",
    "opponents_in_hand",
)
BASE_FEATURES = (
    "bias",
    "equity",
    *(f"equity_above_{hinge:g}" for hinge in EQUITY_HINGES),
    "pot_odds",
    "equity_minus_pot_odds",
    *TABLE_FEATURES,
    "equity_when_raised",
    "equity_when_facing_all_in",
    "committed_over_cap",
)


def by_table_size(names: Sequence[str]) -> tuple[str, ...]:
    """Every feature twice: once for heads-up tables (0 at bigger ones) and once for
    tables of three or more, so the two kinds of game get their own weights."""
    return (*(f"heads_up_{name}" for name in names), *(f"multiway_{name}" for name in names))


FEATURE_NAMES = by_table_size(BASE_FEATURES)
PREFLOP_SAMPLES = 1000
POSTFLOP_SAMPLES = 100
_MAX_OPPONENTS = 4  # beyond four random hands the estimate barely moves and costs more


def equity(hole: Sequence[Card], board: Sequence[Card], *, opponents: int, samples: int) -> float:
    """Monte-Carlo equity of ``hole`` on ``board`` against ``opponents`` random hands."""
    opponents = max(1, min(opponents, _MAX_OPPONENTS))
    known = (*hole, *board)
    seed = opponents
    for card in sorted(known):
        seed = (
            seed * 53 + card + 1
        )  # a pure function of the cards: no hash(), same in every process
    rng = random.Random(seed)
    deck = [card for card in range(52) if card not in known]
    missing = 5 - len(board)
    draw_count = missing + 2 * opponents
    score = 0.0
    hole_tuple = tuple(hole)
    board_tuple = tuple(board)
    for _ in range(samples):
        drawn = rng.sample(deck, draw_count)
        full_board = board_tuple + tuple(drawn[:missing])
        mine = evaluate(hole_tuple + full_board)
        best = min(
            evaluate((drawn[missing + 2 * index], drawn[missing + 2 * index + 1], *full_board))
            for index in range(opponents)
        )
        if mine < best:  # lower ranks are better hands
            score += 1.0
        elif mine == best:
            score += 0.5
    return score / samples


def preflop_class(hole: Sequence[Card]) -> tuple[int, int, bool]:
    """A starting hand's class: its higher and lower card ranks, and whether it is suited."""
    high, low = sorted((hole[0] >> 2, hole[1] >> 2), reverse=True)
    return high, low, (hole[0] & 3) == (hole[1] & 3)


def preflop_classes() -> list[tuple[int, int, bool]]:
    """Every starting-hand class (169): pairs, then suited and offsuit hands."""
    return [
        (high, low, suited)
        for high in range(13)
        for low in range(high + 1)
        for suited in ((False,) if high == low else (False, True))
    ]


def estimate_preflop_equity(hand_class: tuple[int, int, bool], opponents: int) -> float:
    """The pre-flop estimate of a class against ``opponents`` (1-4) random hands, made
    from its representative (clubs, and diamonds for the second card if offsuit)."""
    high, low, suited = hand_class
    representative = (high * 4, low * 4 + (0 if suited else 1))
    return equity(representative, (), opponents=opponents, samples=PREFLOP_SAMPLES)


def preflop_equity(hole: Sequence[Card], opponents: int) -> float:
    """Equity of a starting hand against ``opponents`` random hands: the table's
    :func:`estimate_preflop_equity` (see the module)."""
    won = PREFLOP_HALF_POINTS[preflop_class(hole)][min(max(opponents, 1), _MAX_OPPONENTS) - 1]
    # The estimate is a whole number of half points over the samples: exactly this float.
    return won / (2 * PREFLOP_SAMPLES)


def features(observation: Observation) -> np.ndarray:
    """The feature vector (see :data:`FEATURE_NAMES`) of the decision in ``observation``."""
    opponents = observation.folded.count(False) - 1
    if observation.street is Street.PREFLOP:
        hand_equity = preflop_equity(observation.hole_cards, opponents)
    else:
        hand_equity = equity(
            observation.hole_cards, observation.board, opponents=opponents, samples=POSTFLOP_SAMPLES
        )
    to_call = observation.to_call
    pot = observation.pot
    pot_odds = to_call / (pot + to_call) if to_call else 0.0
    cap = observation.cap or observation.big_blind * 50
    street = observation.street
    seat = observation.seat
    raises = 0
    opponent_raised = False
    for record in observation.history:
        if record.street == street and record.kind is ActionKind.RAISE:
            raises += 1
            opponent_raised = opponent_raised or record.seat != seat
    available = observation.available[seat]
    facing_all_in = to_call > 0 and to_call >= available
    base = np.array(
        (
            1.0,
            hand_equity,
            *(max(0.0, hand_equity - hinge) for hinge in EQUITY_HINGES),
            pot_odds,
            hand_equity - pot_odds,
            min(to_call / pot, 3.0) / 3.0 if pot else 0.0,
            min(pot / cap, 1.0),
            min(available / (pot + to_call), 4.0) / 4.0 if pot + to_call else 0.0,
            street == Street.PREFLOP,
            street == Street.FLOP,
            street == Street.TURN,
            street == Street.RIVER,
            to_call == 0,
            seat == observation.button,
            ((seat - observation.button - 1) % observation.seat_count)
            / max(1, observation.seat_count - 1),
            opponent_raised,
            min(raises, 3) / 3,
            opponents / max(1, observation.seat_count - 1),
            hand_equity if opponent_raised else 0.0,
            hand_equity if facing_all_in else 0.0,
            observation.committed[seat] / cap,
        ),
        dtype=np.float64,
    )
    zeros = np.zeros_like(base)
    if observation.seat_count == 2:
        return np.concatenate((base, zeros))
    return np.concatenate((zeros, base))
