"""Hostile: answers with well-formed actions the rules refuse (a raise of one chip, a
check facing a bet, a raise when raising is over)."""

from dp_arena.engine import Action


class Bot:
    def act(self, observation):
        if observation.to_call:
            return Action.check()
        return Action.raise_to(1)
