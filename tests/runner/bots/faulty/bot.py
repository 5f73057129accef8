"""Faulty but repeatable: at some decisions it raises (an ERROR fault), at some it bets
one chip (an ILLEGAL fault), each chosen by what it sees, and at the start of each
session's second deal it raises (a hook's fault), so that played again it faults at the
same places; three faults in a session bench it, as the run did."""

from __future__ import annotations

import random

from dp_arena.engine import Action


class Faulty:
    def begin_deal(self, start):
        if start.context.deal_number == 1:
            raise RuntimeError("a deal it does not like")

    def act(self, observation):
        view = (observation.context.deal_number, observation.hole_cards, len(observation.history))
        draw = random.Random(repr(view)).random()
        if draw < 0.1:
            raise RuntimeError("a spot it does not like")
        if draw < 0.2:
            return Action.raise_to(1)
        return Action.call() if observation.to_call else Action.check()
