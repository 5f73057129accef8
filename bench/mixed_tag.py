"""A mixed-strategy version of the tight-aggressive bot, for the benchmarks: it answers
every decision with a mix that plays tag's action with probability ``Q`` (0.8) and
spreads the rest evenly over the other legal kinds of action (a raise to half the pot
after a call, within the legal range). The dealer draws from the mix."""

from __future__ import annotations

from dp_arena.agents import Observation
from dp_arena.agents.spec import AGENTS_DIR, load_agent
from dp_arena.engine import Action, ActionKind, Mix

Q = 0.8


class MixedTag:
    def __init__(self) -> None:
        self.tag = load_agent(f"{AGENTS_DIR / 'tag.py'}:TightAggressiveBot")

    def act(self, observation: Observation) -> Action | Mix:
        chosen = self.tag.act(observation)
        others = [
            _half_pot(observation) if kind is ActionKind.RAISE else Action(kind)
            for kind in observation.legal_actions
            if kind is not chosen.kind
        ]
        if not others:
            return chosen
        rest = (1 - Q) / len(others)
        return Mix([(chosen, Q), *((action, rest) for action in others)])


def _half_pot(observation: Observation) -> Action:
    assert observation.min_raise_to is not None and observation.max_raise_to is not None
    wanted = observation.current_bet + (observation.pot + observation.to_call) // 2
    return Action.raise_to(min(max(wanted, observation.min_raise_to), observation.max_raise_to))
