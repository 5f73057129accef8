"""RandomBot: every legal action kind equally likely; a raise spread evenly over eight
amounts from the minimum to the maximum (both included).

It answers every decision with that distribution, a mixed strategy
(:func:`dp_arena.agents.uniform.uniform_mix`), and the dealer draws the action from the
event key: the bot holds no random generator of its own, plays the same way on every
executor and after a resume, and the luck of the dealer's draws is taken out of the
luck-adjusted scores (docs/rankings.md). Every bot should beat it.
"""

from __future__ import annotations

from dp_arena.agents import Observation
from dp_arena.agents.uniform import uniform_mix
from dp_arena.engine import Mix


class RandomBot:
    def act(self, observation: Observation) -> Mix:
        return uniform_mix(observation.legal())
