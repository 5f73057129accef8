"""A bot that calls, but raises on every third decision (its faults must survive the
trip through JSON and the store)."""

from __future__ import annotations

from dp_arena.agents import Observation
from dp_arena.engine import Action


class Flaky:
    def __init__(self) -> None:
        self.decisions = 0

    def act(self, observation: Observation) -> Action:
        self.decisions += 1
        if self.decisions % 3 == 0:
            raise RuntimeError(f"flaky failure number {self.decisions // 3}")
        return Action.call() if observation.to_call else Action.check()
