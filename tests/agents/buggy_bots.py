"""Small misbehaving bots for the match's fault tests (loaded by file spec)."""

from __future__ import annotations

from dp_arena.agents import Observation
from dp_arena.engine import Action


class RaisingBot:
    """Raises an exception at every decision."""

    def act(self, observation: Observation) -> Action:
        raise RuntimeError("this bot always fails")


class IllegalBot:
    """Always raises to one chip: never a legal amount (the minimum bet is the big blind)."""

    def act(self, observation: Observation) -> Action:
        return Action.raise_to(1)


class GarbageBot:
    """Answers with something that is not an action at all."""

    def act(self, observation: Observation) -> object:
        return "dance a jig"


class SecondDecisionFails:
    """Calls or checks, except that its second decision of every session is illegal
    (a raise to one chip): exactly one fault per table."""

    def __init__(self) -> None:
        self.decisions = 0

    def begin_session(self, context: object) -> None:
        self.decisions = 0

    def act(self, observation: Observation) -> Action:
        self.decisions += 1
        if self.decisions == 2:
            return Action.raise_to(1)
        return Action.call() if observation.to_call else Action.check()
