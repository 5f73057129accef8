"""Native opponents for the vector environment: the built-in ``random`` and
``calling-station`` bots played straight from the engine's hand, without building the
typed observation (most of the cost of an opponent's decision).

Each answers exactly as its bot in ``agents/`` does given the same decision: the random
one with the same mixed strategy (:func:`dp_arena.agents.uniform.uniform_mix`), which the
environment draws from as a dealer would (``tests/envs`` plays both side by side). Any
other opponent is played through its typed observation.
"""

from __future__ import annotations

from typing import Protocol

from dp_arena.agents.uniform import uniform_mix
from dp_arena.engine import Action, HandState, Mix

__all__ = ["NATIVE_OPPONENTS", "NativeCallingStation", "NativeOpponent", "NativeRandom"]


class NativeOpponent(Protocol):
    def begin_deal(self, event: str, session: int, deal: int, seat: int) -> None: ...

    def act(self, hand: HandState) -> Action | Mix: ...


class NativeCallingStation:
    """``agents/calling_station.py``: calls any bet, checks otherwise."""

    def begin_deal(self, event: str, session: int, deal: int, seat: int) -> None:
        return None

    def act(self, hand: HandState) -> Action:
        return Action.call() if hand.legal_actions().call_amount else Action.check()


class NativeRandom:
    """``agents/random_bot.py``: every legal kind equally likely, a raise spread over
    amounts from the minimum to the maximum, answered as a mix."""

    def begin_deal(self, event: str, session: int, deal: int, seat: int) -> None:
        return None

    def act(self, hand: HandState) -> Action | Mix:
        return uniform_mix(hand.legal_actions())


# Built-in specs with a native equivalent, and what builds it.
NATIVE_OPPONENTS: dict[str, type[NativeCallingStation] | type[NativeRandom]] = {
    "calling-station": NativeCallingStation,
    "random": NativeRandom,
}
