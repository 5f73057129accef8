"""Careless: plays legal actions but draws from the global random module, seeded by the
operating system in every new process, so the same states get other answers."""

import random

from dp_arena.engine import Action, ActionKind


class Bot:
    def act(self, observation):
        unseeded = random.random()  # noqa: TID251 - the carelessness under test
        if ActionKind.RAISE in observation.legal_actions and unseeded < 0.5:
            return Action.raise_to(observation.min_raise_to)
        return Action.call() if ActionKind.CALL in observation.legal_actions else Action.check()
