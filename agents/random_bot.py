"""RandomBot: picks uniformly among the legal action kinds; a raise goes to a uniformly
random amount between the minimum and the maximum.

Its choices are seeded from the deal (event, section, session, deal, seat), so it plays
the same way on every executor and after a resume. Every bot should beat it.
"""

from __future__ import annotations

import random

from dp_arena.agents import DealStart, Observation
from dp_arena.engine import Action, ActionKind


class RandomBot:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def begin_deal(self, start: DealStart) -> None:
        # Seeded from where the deal sits and the seat, not the table: mirrored copies of
        # this bot facing the same cards in the same spot make the same decisions, so the
        # duplicate comparison cancels its luck too (two copies score exactly zero).
        context = start.context
        self.rng = random.Random(
            f"{self.seed}:{context.event}:{context.section}:{context.session}:"
            f"{context.deal_number}:{start.seat}"
        )

    def act(self, observation: Observation) -> Action:
        kind = self.rng.choice(observation.legal_actions)
        if kind is ActionKind.RAISE:
            assert observation.min_raise_to is not None and observation.max_raise_to is not None
            return Action.raise_to(
                self.rng.randint(observation.min_raise_to, observation.max_raise_to)
            )
        return Action(kind)
