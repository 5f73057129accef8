"""A bot that plays a :class:`~dp_arena.learn.policy.LinearPolicy`: features of the
observation, then either the most likely legal discrete action (greedy), or the policy's
softmax at a temperature answered as a mixed strategy for the dealer to draw from."""

from __future__ import annotations

import numpy as np

from dp_arena.agents.observation import Observation
from dp_arena.engine.actions import Action
from dp_arena.engine.mixes import Mix
from dp_arena.envs.encoding import encode
from dp_arena.envs.policy_agent import discrete_mix
from dp_arena.learn.features import features
from dp_arena.learn.policy import LinearPolicy, SoftmaxPolicy

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
        pot, current_bet = observation.pot, observation.current_bet
        if self.policy.feature_set == "vector":
            # As the vector environment's batch plays it: the observation's vector.
            vectors, masks = encode(observation)[None, :], mask[None, :]
            policy = self.batch_policy()
            if isinstance(policy, LinearPolicy):
                index = int(policy(vectors, masks)[0])
                return actions.to_action(index, legal, pot=pot, current_bet=current_bet)
            probabilities = policy.distribution(vectors, masks)[0]
        else:
            phi = features(observation)
            if self.temperature is None:
                index = self.policy.best(phi, mask)
                return actions.to_action(index, legal, pot=pot, current_bet=current_bet)
            logits = self.policy.weights @ phi
            allowed = mask.astype(bool)
            scaled = np.where(allowed, (logits - logits[allowed].max()) / self.temperature, -np.inf)
            probabilities = np.exp(scaled)
            probabilities /= probabilities.sum()
        return discrete_mix(
            probabilities,
            mask,
            lambda index: actions.to_action(index, legal, pot=pot, current_bet=current_bet),
        )

    def batch_policy(self) -> LinearPolicy | SoftmaxPolicy:
        """The bot as a policy over batched observation vectors, which the vector
        environment's batch plays exactly as the bot plays (a policy over vector features
        only): greedy, or mixed at its temperature."""
        if self.temperature is None:
            return self.policy
        return SoftmaxPolicy(self.policy, self.temperature)
