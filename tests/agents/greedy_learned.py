"""The learned bot played greedily (no mixed strategy): deterministic, for the tests."""

from __future__ import annotations

from dp_arena.agents.spec import AGENTS_DIR, load_agent


class Greedy:
    def __init__(self) -> None:
        bot = load_agent(f"{AGENTS_DIR / 'learned.py'}:LearnedBot")
        bot.temperature = None
        self.bot = bot

    def act(self, observation):  # type: ignore[no-untyped-def]
        return self.bot.act(observation)
