"""A bot that plays a :class:`~dp_arena.learn.policy.LinearPolicy`: features of the
observation, the most likely legal discrete action, that action as an engine action."""

from __future__ import annotations

import numpy as np

from dp_arena.agents.observation import Observation
from dp_arena.engine.actions import Action
from dp_arena.envs.encoding import encode
from dp_arena.learn.features import features
from dp_arena.learn.policy import LinearPolicy

__all__ = ["PolicyBot"]


class PolicyBot:
    """Plays ``policy`` greedily: deterministic, so a match replays exactly."""

    def __init__(self, policy: LinearPolicy) -> None:
        self.policy = policy

    def act(self, observation: Observation) -> Action:
        legal = observation.legal()
        actions = self.policy.actions
        mask = np.array(actions.mask(legal), dtype=np.int8)
        if self.policy.feature_set == "vector":
            # As the vector environment's batch plays it: the observation's vector.
            index = int(self.policy(encode(observation)[None, :], mask[None, :])[0])
        else:
            index = self.policy.best(features(observation), mask)
        return actions.to_action(
            index, legal, pot=observation.pot, current_bet=observation.current_bet
        )
