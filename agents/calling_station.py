"""CallingStation: never raises and never folds; calls any bet and checks otherwise."""

from __future__ import annotations

from dp_arena.agents import Observation
from dp_arena.engine import Action


class CallingStation:
    def act(self, observation: Observation) -> Action:
        return Action.call() if observation.to_call else Action.check()
