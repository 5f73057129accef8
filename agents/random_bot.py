"""RandomBot: picks uniformly among the legal action kinds; a raise goes to a uniformly
random amount between the minimum and the maximum.

Its choices are drawn from counter-based draws keyed by the deal and its seat (event,
section, session, deal, seat: :mod:`dp_arena.agents.draws`), two draws a decision (the
kind, then the amount of a raise), so it plays the same way on every executor and after
a resume, and the vector environment draws the same numbers for many tables at once.
Every bot should beat it.
"""

from __future__ import annotations

from dp_arena.agents import DealStart, Observation
from dp_arena.agents.draws import below, deal_key, draw, session_key
from dp_arena.engine import Action, ActionKind


class RandomBot:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.key = deal_key(session_key(f"random:{seed}"), deal=0, seat=0)
        self.counter = 0
        self._session: tuple[object, ...] = ()
        self._session_key = 0

    def begin_deal(self, start: DealStart) -> None:
        # Keyed by where the deal sits and the seat, not the table: mirrored copies of this
        # bot facing the same cards in the same spot make the same decisions, so the
        # duplicate comparison cancels its luck too (two copies score exactly zero).
        context = start.context
        session = (context.event, context.section, context.session)
        if session != self._session:
            self._session = session
            self._session_key = session_key(
                f"random:{self.seed}:{context.event}:{context.section}:{context.session}"
            )
        self.key = deal_key(self._session_key, deal=context.deal_number, seat=start.seat)
        self.counter = 0

    def act(self, observation: Observation) -> Action:
        kinds = observation.legal_actions
        kind = kinds[below(draw(self.key, self.counter), len(kinds))]
        amount = draw(self.key, self.counter + 1)
        self.counter += 2
        if kind is ActionKind.RAISE:
            low, high = observation.min_raise_to, observation.max_raise_to
            assert low is not None and high is not None
            return Action.raise_to(low + below(amount, high - low + 1))
        return Action(kind)
