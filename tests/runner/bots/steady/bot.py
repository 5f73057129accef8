"""Repeatable: its choice is a function of what it sees (a generator seeded from its
view), so asked again with the same view it answers the same."""

from __future__ import annotations

import random

from dp_arena.engine import Action, ActionKind


class Steady:
    def act(self, observation):
        view = (observation.context.deal_number, observation.hole_cards, len(observation.history))
        draw = random.Random(repr(view)).random()
        legal = observation.legal_actions
        if ActionKind.RAISE in legal and draw < 0.3:
            return Action.raise_to(observation.min_raise_to)
        if ActionKind.CALL in legal:
            return Action.call() if draw < 0.8 else Action.fold()
        return Action.check()
