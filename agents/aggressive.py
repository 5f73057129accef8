"""AggressiveBot: a maniac that raises whatever it holds, and never folds.

How it plays: whenever it may raise and has raised fewer than ``max_raises`` times
(default 2) on this street, it raises to a street total that adds between half the pot
and the whole pot after a call (drawn at random, clamped to the legal range: a
pot-sized raise is the pot-limit maximum). Otherwise it calls a bet, and checks when
nothing is owed. It never looks at its cards and never folds.

Its draws are seeded from the deal and its seat (``begin_deal``), so it plays the same
way on every executor and after a resume, and two copies of it in a duplicate match
score exactly zero. Against tight players it pays off their strong hands; against the
passive calling station its bluffs never work.
"""

from __future__ import annotations

import random

from dp_arena.agents import DealStart, Observation
from dp_arena.engine import Action, ActionKind


class AggressiveBot:
    def __init__(self, max_raises: int = 2, seed: int = 0) -> None:
        self.max_raises = max_raises
        self.seed = seed
        self.rng = random.Random(seed)

    def begin_deal(self, start: DealStart) -> None:
        # Seeded from where the deal sits and the seat, not the table: mirrored copies of
        # this bot facing the same cards in the same spot make the same decisions.
        context = start.context
        self.rng = random.Random(
            f"aggressive:{self.seed}:{context.event}:{context.section}:{context.session}:"
            f"{context.deal_number}:{start.seat}"
        )

    def act(self, observation: Observation) -> Action:
        own_raises = sum(
            1
            for record in observation.history
            if record.street == observation.street
            and record.seat == observation.seat
            and record.kind is ActionKind.RAISE
        )
        if observation.can(ActionKind.RAISE) and own_raises < self.max_raises:
            assert observation.min_raise_to is not None and observation.max_raise_to is not None
            pot_after_call = observation.pot + observation.to_call
            wanted = observation.current_bet + self.rng.randint(pot_after_call // 2, pot_after_call)
            return Action.raise_to(
                min(max(wanted, observation.min_raise_to), observation.max_raise_to)
            )
        return Action.call() if observation.to_call else Action.check()
