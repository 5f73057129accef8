"""Native opponents for the vector environment: the built-in ``random`` and
``calling-station`` bots played straight from the engine's hand, without building the
typed observation (most of the cost of an opponent's decision).

Each makes exactly the decisions of its bot in ``agents/`` given the same seat, deal and
event: the random one seeds its generator from the same text at the start of every deal
and draws the same kinds and amounts in the same order (``tests/envs`` plays both side
by side). Any other opponent is played through its typed observation.
"""

from __future__ import annotations

import random
from typing import Protocol

from dp_arena.engine import Action, ActionKind, HandState

__all__ = ["NATIVE_OPPONENTS", "NativeCallingStation", "NativeOpponent", "NativeRandom"]


class NativeOpponent(Protocol):
    def begin_deal(self, event: str, session: int, deal: int, seat: int) -> None: ...

    def act(self, hand: HandState) -> Action: ...


class NativeCallingStation:
    """``agents/calling_station.py``: calls any bet, checks otherwise."""

    def begin_deal(self, event: str, session: int, deal: int, seat: int) -> None:
        return None

    def act(self, hand: HandState) -> Action:
        return Action.call() if hand.legal_actions().call_amount else Action.check()


class NativeRandom:
    """``agents/random_bot.py`` with its default seed: a uniform legal kind, a raise to a
    uniform amount between the minimum and the maximum."""

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def begin_deal(self, event: str, session: int, deal: int, seat: int) -> None:
        # RandomBot's text: seed, event, section (0 in the environments), session, deal, seat.
        self.rng = random.Random(f"0:{event}:0:{session}:{deal}:{seat}")

    def act(self, hand: HandState) -> Action:
        legal = hand.legal_actions()
        kind = self.rng.choice(legal.kinds)
        if kind is ActionKind.RAISE:
            assert legal.min_raise_to is not None and legal.max_raise_to is not None
            return Action.raise_to(self.rng.randint(legal.min_raise_to, legal.max_raise_to))
        return Action(kind)


# Built-in specs with a native equivalent, and what builds it.
NATIVE_OPPONENTS: dict[str, type[NativeCallingStation] | type[NativeRandom]] = {
    "calling-station": NativeCallingStation,
    "random": NativeRandom,
}
