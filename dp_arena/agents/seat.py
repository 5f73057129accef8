"""Seats: the one interface through which a table talks to a player.

A table cannot tell an in-process seat (trusted code, tests) from a sandboxed one
(a submitted bot in its own process, :mod:`dp_arena.sandbox`): both answer
:meth:`Seat.decide` with an action, a mixed strategy (a
:class:`~dp_arena.engine.mixes.Mix`, which the table draws from) or a
:class:`SeatFault`, never an exception.
"""

from __future__ import annotations

import contextlib
import os
import traceback
from dataclasses import dataclass
from typing import Any, Protocol

from dp_arena.agents.agent import HOOKS, Agent, parse_answer
from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.engine.actions import Action
from dp_arena.engine.mixes import Mix
from dp_arena.results import FaultKind
from dp_arena.text import printable

__all__ = [
    "AbsentSeat",
    "InProcessSeat",
    "Seat",
    "SeatFault",
    "WrappedSeat",
    "describe_answer",
    "describe_error",
    "shown",
]


# The longest fault detail kept (after escaping).
DETAIL_LIMIT = 2000


@dataclass(frozen=True, slots=True)
class SeatFault:
    """Why a seat gave no answer. ``detail`` is one line of printable text: whatever
    of the bot's own words it quotes (an exception message, its stderr, its replies) is
    escaped when the fault is made (:func:`dp_arena.text.printable`), so a fault can be
    shown, stored and encoded whatever the bot wrote."""

    kind: FaultKind
    detail: str

    def __post_init__(self) -> None:
        if len(self.detail) > DETAIL_LIMIT or not self.detail.isprintable():
            object.__setattr__(self, "detail", printable(self.detail, DETAIL_LIMIT))


class Seat(Protocol):
    """A player at a table. ``active`` turns False for good once the player crashed or
    could not be loaded; the table then plays the seat as an absent player.

    ``bot_name`` and ``wait_loaded`` have defaults: a seat class that subclasses this one
    inherits them (a seat whose bot is loaded when the seat is made has nothing to wait
    for)."""

    name: str

    @property
    def active(self) -> bool: ...

    def begin_session(self, context: SessionContext) -> SeatFault | None: ...

    def begin_deal(self, start: DealStart) -> SeatFault | None: ...

    def decide(self, observation: Observation) -> Action | Mix | SeatFault: ...

    def end_deal(self, end: DealEnd) -> SeatFault | None: ...

    def close(self) -> None: ...

    @property
    def bot_name(self) -> str:
        """What the bot calls itself (its class's name, or the name a sandboxed bot gives
        in its hello); empty when it gives none."""
        return ""

    def wait_loaded(self) -> SeatFault | None:
        """Wait until the bot has loaded (a sandboxed bot's hello): its load fault, or
        ``None``."""
        return None


def shown(value: object, limit: int) -> str:
    """``str(value)`` cut to ``limit``: a bot's object may fail to become text, or be
    enormous; neither must stop a seat reporting on it."""
    try:
        text = str(value)
    except Exception:
        return f"<{type(value).__name__} that cannot be shown>"
    return text[:limit]


def describe_error(error: BaseException) -> str:
    """A bot's exception as every kind of seat reports it (in this process or in the
    sandbox's runner): its type, its message and the file (by name only, the same on
    every machine) and line it was raised at.

    >>> try:
    ...     {}["missing"]
    ... except KeyError as error:
    ...     print(describe_error(error))
    KeyError: 'missing' at <doctest dp_arena.agents.seat.describe_error[0]>:2
    """
    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    return f"{type(error).__name__}: {shown(error, 400)}"[:400] + where


def describe_answer(answer: object, error: BaseException) -> str:
    """Why a bot's answer to ``act`` is no action, as every kind of seat reports it."""
    return f"act returned {shown(answer, 80)!r}: {shown(error, 200)}"


class InProcessSeat(Seat):
    """A trusted agent called directly, in this process. Exceptions become faults."""

    active = True

    def __init__(self, agent: Agent, name: str) -> None:
        self.agent = agent
        self.name = name
        # The bot's own optional hooks: it owes the harness no base class to declare them.
        self._hooks = {hook: getattr(agent, hook, None) for hook in HOOKS}

    @property
    def bot_name(self) -> str:
        return type(self.agent).__name__

    def has_hook(self, hook: str) -> bool:
        """Whether the agent defines ``hook`` (``begin_session``, ``begin_deal`` or
        ``end_deal``): a table may skip building what a hook it lacks would be told."""
        return self._hooks[hook] is not None

    def _hook(self, hook: str, argument: Any) -> SeatFault | None:
        method = self._hooks[hook]
        if method is None:
            return None
        try:
            method(argument)
        except Exception as error:  # a bot's bug is a fault, not our crash
            return SeatFault(FaultKind.ERROR, f"{hook}: {describe_error(error)}")
        return None

    def begin_session(self, context: SessionContext) -> SeatFault | None:
        return self._hook("begin_session", context)

    def begin_deal(self, start: DealStart) -> SeatFault | None:
        return self._hook("begin_deal", start)

    def end_deal(self, end: DealEnd) -> SeatFault | None:
        return self._hook("end_deal", end)

    def decide(self, observation: Observation) -> Action | Mix | SeatFault:
        try:
            answer = self.agent.act(observation)
        except Exception as error:
            return SeatFault(FaultKind.ERROR, f"act: {describe_error(error)}")
        if type(answer) is Action:
            return answer
        try:
            return parse_answer(answer)
        except Exception as error:  # a bot's str or dict subclass may raise anything
            return SeatFault(FaultKind.PROTOCOL, describe_answer(answer, error))

    def close(self) -> None:
        close = getattr(self.agent, "close", None)
        if callable(close):
            # Closing a bot must never fail the table.
            with contextlib.suppress(Exception):
                close()


class WrappedSeat(Seat):
    """A seat around another, ``inner``, that it is unless it says otherwise: each method
    hands on to the inner seat's. A wrapper (the replay's recorded seat, the conformance
    check's timed one) overrides what it watches or changes."""

    def __init__(self, inner: Seat) -> None:
        self.inner = inner
        self.name = inner.name

    @property
    def active(self) -> bool:
        return self.inner.active

    @property
    def bot_name(self) -> str:
        return self.inner.bot_name

    def wait_loaded(self) -> SeatFault | None:
        return self.inner.wait_loaded()

    def begin_session(self, context: SessionContext) -> SeatFault | None:
        return self.inner.begin_session(context)

    def begin_deal(self, start: DealStart) -> SeatFault | None:
        return self.inner.begin_deal(start)

    def decide(self, observation: Observation) -> Action | Mix | SeatFault:
        return self.inner.decide(observation)

    def end_deal(self, end: DealEnd) -> SeatFault | None:
        return self.inner.end_deal(end)

    def close(self) -> None:
        self.inner.close()


class AbsentSeat(Seat):
    """An absent player (docs/rules.md): posts its blinds, checks when it can, folds otherwise."""

    active = False

    def __init__(self, name: str = "(absent)") -> None:
        self.name = name

    def begin_session(self, context: SessionContext) -> SeatFault | None:
        return None

    def begin_deal(self, start: DealStart) -> SeatFault | None:
        return None

    def decide(self, observation: Observation) -> Action | Mix | SeatFault:
        return observation.legal().passive()

    def end_deal(self, end: DealEnd) -> SeatFault | None:
        return None

    def close(self) -> None:
        return None
