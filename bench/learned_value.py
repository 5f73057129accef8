"""A cross-fitted learned value for the action terms, measured beside the fixed one and
not used by the adjusted score (``docs/rankings.md`` gives the figures and why).

The fixed value of an action is a blend of exact showdown values: at once, after every
live opponent calls a raise, after every opponent folds to it. Here the value is
**learned** from the run's own deals instead: every seat's value after an action is a
linear function of features of the hand after it (those three values and a pot-sized
future bet won by the showdown share, each apart for the seat that acted and the
others, before the flop and after it), with weights fitted so that the luck taken out
best predicts what is left of each net after the board's luck. The luck of a draw is
linear in the weights, ``w . (phi(drawn) - sum p(a) phi(a))``, so the fit is one
least-squares regression of the board-adjusted nets on each table-deal's summed feature
differences.

**Cross-fitting** keeps it unbiased: the deals are split into :data:`FOLDS` folds by
their index, and a deal's terms use weights fitted on the other folds only. A deal's
draws are independent of every other deal, so the weights are fixed before its draws
and each term keeps its mean of exactly zero over the mix, whatever the weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from dp_arena.engine import ActionKind, HandState, Street
from dp_arena.engine.mixes import Mix
from dp_arena.ratings.action_luck import ActionValue, decision_values, recorded_action
from dp_arena.ratings.board_luck import corrected_nets
from dp_arena.ratings.equity import recorded_hand, replay
from dp_arena.results import DealRecord

FOLDS = 10
RIDGE = 1e-3  # times the mean diagonal of the normal matrix: a touch, for stability
# Per seat: the showdown at once, after every live opponent calls, every opponent
# folding to it, a pot-sized bet by every live player won by the showdown share.
BASE_FEATURES = 4
# ... each apart for the actor and the others, before the flop and after it.
FEATURES = BASE_FEATURES * 4
_SHOWDOWN = ActionValue()
_CALLED = ActionValue(called=Fraction(1))
_FOLDED = ActionValue(folded=Fraction(1))


def action_features(state: HandState, mix: Mix) -> np.ndarray:
    """Every seat's features after each action of ``mix`` (its actor to act in
    ``state``): an array of (actions, seats, :data:`FEATURES`)."""
    showdown = decision_values(state, mix.actions, _SHOWDOWN)
    called = decision_values(state, mix.actions, _CALLED)
    folded = decision_values(state, mix.actions, _FOLDED)
    actor = state.actor
    assert actor is not None
    call_amount = state.legal_actions().call_amount
    after_flop = state.street is not Street.PREFLOP
    found = np.zeros((len(mix.actions), state.seat_count, FEATURES))
    for index, action in enumerate(mix.actions):
        committed = list(state.committed)
        live = [seat for seat in range(state.seat_count) if not state.folded[seat]]
        if action.kind is ActionKind.FOLD:
            live.remove(actor)
        elif action.kind is ActionKind.CALL:
            committed[actor] += call_amount
        elif action.kind is ActionKind.RAISE:
            assert action.amount is not None
            committed[actor] += action.amount - state.street_bets[actor]
        pot = sum(committed)
        for seat in range(state.seat_count):
            now = float(showdown[index][seat])
            future = 0.0
            if seat in live and len(live) > 1:
                share = (now + committed[seat]) / pot
                future = pot * (len(live) * share - 1)
            group = 2 * (seat == actor) + after_flop
            found[index, seat, group * BASE_FEATURES : (group + 1) * BASE_FEATURES] = (
                now,
                float(called[index][seat]),
                float(folded[index][seat]),
                future,
            )
    return found


def deal_features(rules: Any, record: DealRecord) -> tuple[np.ndarray, np.ndarray]:
    """A deal's board-adjusted nets and every seat's feature differences summed over
    its drawn decisions, ``phi(drawn) - sum p(a) phi(a)``: arrays of (seats,) and
    (seats, :data:`FEATURES`)."""
    mixes = dict(record.mixes)
    differences = np.zeros((rules.seat_count, FEATURES))

    def before(index: int, state: HandState) -> None:
        text = mixes.get(index)
        if text is None:
            return
        mix = Mix.parse(text)
        features = action_features(state, mix)
        chances = np.array(mix.weights, dtype=float) / mix.total
        drawn = mix.actions.index(recorded_action(record.actions[index]))
        differences[...] += features[drawn] - np.tensordot(chances, features, axes=1)

    replay(rules, **recorded_hand(record), before_action=before)
    board = np.array([float(net) for net in corrected_nets(rules, record)])
    return board, differences


def learned_nets(rules: Any, tables: Sequence[Any]) -> list[list[tuple[Fraction, ...]]]:
    """Every table's nets of every deal less the board's luck and the draws' luck
    valued by the cross-fitted learned value (``tables``: table-session results of the
    same deals)."""
    deal_count = len(tables[0].deals)
    pairs = [[deal_features(rules, deal) for deal in table.deals] for table in tables]
    board = np.array([[nets for nets, _ in row] for row in pairs])  # tables, deals, seats
    differences = np.array([[found for _, found in row] for row in pairs])
    folds = np.arange(deal_count) % FOLDS
    luck = np.zeros(board.shape)
    for fold in range(FOLDS):
        fitted = folds != fold
        design = differences[:, fitted].reshape(-1, FEATURES)
        normal = design.T @ design
        ridge = RIDGE * np.trace(normal) / FEATURES
        weights = np.linalg.solve(
            normal + ridge * np.eye(FEATURES), design.T @ board[:, fitted].reshape(-1)
        )
        luck[:, ~fitted] = differences[:, ~fitted] @ weights
    adjusted = board - luck
    return [[tuple(Fraction(float(net)) for net in deal) for deal in table] for table in adjusted]
