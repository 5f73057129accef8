"""A Python class bot for dp-arena: the simplest kind to write. The sandbox hosts it
behind the pipe protocol; it imports only the agent API.

How it plays: a tight caller. Preflop it raises to three big blinds with a pair of
eights or better or ace-king/ace-queen, calls with any other pair or two cards ten or
higher, and folds the rest; after the flop it bets two thirds of the pot with top pair
or better and otherwise checks and folds to bets.
"""

from __future__ import annotations

from dp_arena.agents import Observation
from dp_arena.engine import Action, ActionKind

RANKS = "23456789TJQKA"


class TightCaller:
    def act(self, observation: Observation) -> Action:
        hole = observation.hole_cards_text
        board = observation.board_text
        high, low = sorted((RANKS.index(hole[0]), RANKS.index(hole[2])), reverse=True)
        pair = high == low
        if not board:
            premium = (pair and high >= RANKS.index("8")) or (
                high == 12 and low >= RANKS.index("Q")
            )
            if premium and observation.can(ActionKind.RAISE):
                assert observation.min_raise_to is not None and observation.max_raise_to is not None
                target = max(observation.min_raise_to, 3 * observation.big_blind)
                return Action.raise_to(min(target, observation.max_raise_to))
            playable = pair or low >= RANKS.index("T")
            if playable and observation.can(ActionKind.CALL):
                return Action.call()
        else:
            board_ranks = [RANKS.index(board[index]) for index in range(0, len(board), 2)]
            top_pair = max(board_ranks) in (high, low) or (pair and high > max(board_ranks))
            if top_pair and observation.can(ActionKind.RAISE):
                assert observation.min_raise_to is not None and observation.max_raise_to is not None
                target = observation.current_bet + 2 * observation.pot // 3
                return Action.raise_to(
                    min(max(target, observation.min_raise_to), observation.max_raise_to)
                )
            if top_pair and observation.can(ActionKind.CALL):
                return Action.call()
        return Action.check() if observation.can(ActionKind.CHECK) else Action.fold()
