"""The agent interface: one method, ``act(observation) -> Action``, and optional hooks.

A bot is any object with an ``act`` method; no base class is needed::

    from dp_arena.engine import Action

    class AlwaysCall:
        def act(self, observation):
            return Action.call() if observation.to_call else Action.check()

Optional hooks, called when the bot defines them:

``begin_session(context: SessionContext)``
    a table-session starts (the bot's seat and the session's shape are in ``context``);
``begin_deal(start: DealStart)``
    a deal starts: the bot's seat, the button and its hole cards;
``end_deal(end: DealEnd)``
    a deal is over: the nets, the board, the cards shown at the showdown, the history.

``act`` may return an :class:`~dp_arena.engine.Action`, or for convenience a string
(``"fold"``, ``"check"``, ``"call"``, ``"raise 120"``) or a dict
(``{"action": "raise", "amount": 120}``); :func:`parse_action` turns those into actions.
It may also answer with a mixed strategy, a :class:`~dp_arena.engine.mixes.Mix` of actions
and their probabilities (or a list of ``(action, probability)`` pairs): the dealer then
draws the action (:func:`parse_answer` reads every form).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.engine.actions import Action, ActionKind
from dp_arena.engine.mixes import Mix

__all__ = ["HOOKS", "Agent", "parse_action", "parse_answer"]

HOOKS = ("begin_session", "begin_deal", "end_deal")


@runtime_checkable
class Agent(Protocol):
    """A poker bot. Only :meth:`act` is required; see the module docstring for the hooks."""

    def act(self, observation: Observation) -> Action | Mix: ...


class _AgentWithHooks(Agent, Protocol):  # documents the hooks' signatures for type checkers
    def begin_session(self, context: SessionContext) -> None: ...
    def begin_deal(self, start: DealStart) -> None: ...
    def end_deal(self, end: DealEnd) -> None: ...


_KINDS = {
    "fold": ActionKind.FOLD,
    "check": ActionKind.CHECK,
    "call": ActionKind.CALL,
    "raise": ActionKind.RAISE,
    "bet": ActionKind.RAISE,
}


def parse_action(value: Any) -> Action:
    """An :class:`Action` from an action, a string such as ``"raise 120"`` or a dict such as
    ``{"action": "raise", "amount": 120}``; ``ValueError`` names what is wrong.

    >>> parse_action("raise 120"), parse_action({"action": "call"})
    (Action(kind=<ActionKind.RAISE: 'raise'>, amount=120),
     Action(kind=<ActionKind.CALL: 'call'>, amount=None))
    """
    if isinstance(value, Action):
        if not isinstance(value.kind, ActionKind):
            raise ValueError(f"not an action kind: {value.kind!r}")
        return value
    if isinstance(value, str):
        words = value.strip().lower().split()
        if not words or words[0] not in _KINDS or len(words) > 2:
            raise ValueError(
                f"not an action: {value[:80]!r} (expected fold, check, call or raise N)"
            )
        kind_text, amount_text = words[0], words[1] if len(words) == 2 else None
        amount: Any = amount_text
        if amount_text is not None:
            if not amount_text.isdigit():
                raise ValueError(f"not an amount: {amount_text[:40]!r}")
            amount = int(amount_text)
    elif isinstance(value, dict):
        kind_value, amount = value.get("action"), value.get("amount")
        if not isinstance(kind_value, str) or kind_value.lower() not in _KINDS:
            raise ValueError(
                f"not an action kind: {str(kind_value)[:40]!r}"
                " (expected fold, check, call or raise)"
            )
        kind_text = kind_value.lower()
    else:
        raise ValueError(
            f"an action must be an Action, a string or a dict, not {type(value).__name__}"
        )
    kind = _KINDS[kind_text]
    if kind is ActionKind.RAISE:
        if type(amount) is not int:
            raise ValueError(f"a raise needs an integer amount, not {str(amount)[:40]!r}")
        return Action.raise_to(amount)
    if amount is not None:
        raise ValueError(f"{kind_text} takes no amount")
    return Action(kind)


def parse_answer(value: Any) -> Action | Mix:
    """What a bot's ``act`` answered: an action in any form :func:`parse_action` reads, or
    a mixed strategy: a :class:`~dp_arena.engine.mixes.Mix`, or a list of ``(action,
    probability)`` pairs whose actions are in any of those forms. A mix of one action is
    that action. ``ValueError`` names what is wrong.

    >>> parse_answer([("call", 0.75), ({"action": "raise", "amount": 120}, 0.25)])
    Mix.parse('call 0.75, raise 120 0.25')
    >>> parse_answer([("check", 1.0)])
    Action(kind=<ActionKind.CHECK: 'check'>, amount=None)
    """
    if type(value) is Mix:
        mix = value
    elif isinstance(value, list):
        entries = []
        for index, entry in enumerate(value):
            if not isinstance(entry, (tuple, list)) or len(entry) != 2:
                raise ValueError(f"entry {index} of a mix is not an (action, probability) pair")
            entries.append((parse_action(entry[0]), entry[1]))
        mix = Mix(entries)
    else:
        return parse_action(value)
    pure = mix.pure
    return mix if pure is None else pure
