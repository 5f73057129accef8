"""Native opponents for the vector environment: the built-in ``random`` and
``calling-station`` bots played straight from the engine's hand, without building the
typed observation (most of the cost of an opponent's decision).

Each answers exactly as its bot in ``agents/`` does given the same decision: the random
one with the same mixed strategy (:func:`dp_arena.agents.uniform.uniform_mix`), which the
environment draws from as a dealer would (``tests/envs`` plays both side by side). Any
other opponent is played through its typed observation (:class:`BotOpponent` plays
``tag`` and ``aggressive`` so for the batch's replays).
"""

from __future__ import annotations

from typing import Protocol

from dp_arena.agents.observation import DealStart, SessionContext
from dp_arena.agents.spec import load_agent
from dp_arena.agents.table import observe
from dp_arena.agents.uniform import uniform_mix
from dp_arena.engine import Action, HandState, Mix

__all__ = [
    "NATIVE_OPPONENTS",
    "BotOpponent",
    "NativeCallingStation",
    "NativeOpponent",
    "NativeRandom",
    "native_opponent",
]


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


class BotOpponent:
    """A built-in bot whose decisions depend only on the deal in play (``tag``,
    ``aggressive``), played from the engine's hand through its typed observation: the
    vector environment's batch replays with it the deals it left unplayed. Its
    ``begin_deal`` hook is called when it first acts in a deal (it seeds the bot's draws
    from the deal's place, which is all these bots read of it)."""

    def __init__(self, spec: str) -> None:
        self.agent = load_agent(spec)
        self.context = SessionContext()
        self.seat = 0
        self.told = True

    def begin_deal(self, event: str, session: int, deal: int, seat: int) -> None:
        self.context = SessionContext(event=event, section=0, session=session, deal_number=deal)
        self.seat = seat
        self.told = False

    def act(self, hand: HandState) -> Action | Mix:
        if not self.told:
            self.told = True
            hook = getattr(self.agent, "begin_deal", None)
            if hook is not None:
                hole = hand.hole_cards[self.seat]
                assert hole is not None
                hook(DealStart(self.seat, hand.seat_count, hand.button, hole, self.context))
        answer = self.agent.act(observe(hand, self.seat, self.context))
        assert isinstance(answer, Action | Mix)
        return answer


def native_opponent(spec: str) -> NativeOpponent:
    """The native opponent of a built-in spec: :data:`NATIVE_OPPONENTS`, else its bot."""
    native = NATIVE_OPPONENTS.get(spec)
    return native() if native is not None else BotOpponent(spec)
