"""Hostile: tries to compute the deck. From its own hole cards it searches for the seed
of the decks among every integer it is told (the context, the observation) and the
small seeds people choose (0..SEARCH). Once exactly one seed explains three deals or
more (two cards alone leave a chance match among thousands of seeds) it knows the
board and the other hands: it bets the maximum with the winning hand and folds the
losing one. It prints what it found to stderr, its log."""

import re
import sys

from dp_arena.engine import Action, ActionKind
from dp_arena.engine.deck import deal_cards, deck_for
from dp_arena.engine.evaluator import evaluate

SEARCH = 3000


class Bot:
    def __init__(self):
        self.candidates = None
        self.known = None
        self.deals_seen = 0

    def begin_deal(self, start):
        context = start.context
        told = {int(number) for number in re.findall(r"\d+", repr(context.to_json()))}
        pool = self.candidates if self.candidates is not None else told | set(range(SEARCH))
        self.candidates = {
            seed for seed in pool if self._hole(seed, start) == tuple(sorted(start.hole_cards))
        }
        self.known = None
        self.deals_seen += 1
        if len(self.candidates) == 1 and self.deals_seen >= 3:
            (seed,) = self.candidates
            deck = deck_for(seed, context.section, context.session, context.deal_number)
            self.known = deal_cards(deck, start.seat_count, start.button)
            print(f"PREDICTED deal {context.deal_number} with seed {seed}", file=sys.stderr)
        else:
            print(f"no seed: {len(self.candidates)} candidates", file=sys.stderr)
        self.seat = start.seat

    @staticmethod
    def _hole(seed, start):
        context = start.context
        deck = deck_for(seed, context.section, context.session, context.deal_number)
        holes, _ = deal_cards(deck, start.seat_count, start.button)
        return tuple(sorted(holes[start.seat]))

    def act(self, observation):
        legal = observation.legal_actions
        if self.known is None:
            return Action.check() if ActionKind.CHECK in legal else Action.fold()
        holes, board = self.known
        mine = evaluate(list(holes[self.seat]) + list(board))
        best_other = max(
            evaluate(list(hole) + list(board))
            for seat, hole in enumerate(holes)
            if seat != self.seat and not observation.folded[seat]
        )
        if mine < best_other:  # lower is better
            if ActionKind.RAISE in legal:
                return Action.raise_to(observation.max_raise_to)
            return Action.call() if ActionKind.CALL in legal else Action.check()
        return Action.check() if ActionKind.CHECK in legal else Action.fold()
