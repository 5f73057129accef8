"""A bot that plays a :class:`~dp_arena.learn.policy.LinearPolicy`: features of the
observation, then either the most likely legal discrete action (greedy), or the policy's
softmax at a temperature answered as a mixed strategy for the dealer to draw from."""

from __future__ import annotations

import numpy as np

from dp_arena.agents.observation import Observation
from dp_arena.engine.actions import Action
from dp_arena.engine.mixes import Mix
from dp_arena.learn.features import features
from dp_arena.learn.policy import LinearPolicy

__all__ = ["PolicyBot"]


class PolicyBot:
    """Plays ``policy``: greedily when ``temperature`` is ``None`` (deterministic),
    otherwise with the softmax of its logits divided by ``temperature``, answered as a
    :class:`~dp_arena.engine.mixes.Mix` (discrete actions that come to the same engine
    action, two raise sizes clipped to the same amount, add up). The dealer draws from
    it with the event key, so a match replays exactly either way."""

    def __init__(self, policy: LinearPolicy, temperature: float | None = None) -> None:
        if temperature is not None and not temperature > 0:
            raise ValueError(f"a temperature must be positive, not {temperature!r}")
        self.policy = policy
        self.temperature = temperature

    def act(self, observation: Observation) -> Action | Mix:
        legal = observation.legal()
        actions = self.policy.actions
        mask = np.array(actions.mask(legal), dtype=np.int8)
        phi = features(observation)
        pot, current_bet = observation.pot, observation.current_bet
        if self.temperature is None:
            index = self.policy.best(phi, mask)
            return actions.to_action(index, legal, pot=pot, current_bet=current_bet)
        logits = self.policy.weights @ phi
        allowed = mask.astype(bool)
        scaled = np.where(allowed, (logits - logits[allowed].max()) / self.temperature, -np.inf)
        weights = np.exp(scaled)
        weights /= weights.sum()
        entries: dict[Action, float] = {}
        for index in np.flatnonzero(weights).tolist():
            action = actions.to_action(index, legal, pot=pot, current_bet=current_bet)
            entries[action] = entries.get(action, 0.0) + float(weights[index])
        return Mix(entries)
