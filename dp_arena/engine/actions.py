"""Actions a player takes, what the rules allow, and the records a hand keeps.

What the rules allow is checked in one place, :meth:`LegalActions.refusal`, which says
why an action is refused (PokerKit's verify / can / do): ``verify`` raises that refusal,
``allows`` answers, and the hand's ``apply`` acts only on an action the check let
through, so a refused action changes nothing.

>>> legal = LegalActions(0, can_fold=True, can_check=False, call_amount=10,
...                      min_raise_to=40, max_raise_to=1000)
>>> legal.allows(Action.call()), legal.allows(Action.raise_to(30))
(True, False)
>>> legal.refusal(Action.raise_to(30))
IllegalActionError('raise to 30 is below the minimum 40')
>>> print(legal.or_passive(Action.raise_to(40)), legal.or_passive(Action.check()))
raise 40 fold
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from dp_arena.errors import IllegalActionError, IllegalReason
from dp_arena.frozen import maker

__all__ = ["Action", "ActionKind", "ActionRecord", "LegalActions", "Street"]


class Street(enum.IntEnum):
    PREFLOP = 0
    FLOP = 1
    TURN = 2
    RIVER = 3
    SHOWDOWN = 4  # the hand is over (whether or not cards were shown)

    @property
    def board_size(self) -> int:
        """Board cards visible on this street."""
        return (0, 3, 4, 5, 5)[self]


class ActionKind(enum.StrEnum):
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    RAISE = "raise"  # a bet or a raise, always *to* a street total


# The kinds for the hot checks: a member read through its class (``ActionKind.FOLD``)
# costs a descriptor call each time, a module name a dictionary look-up.
FOLD_KIND, CHECK_KIND, CALL_KIND, RAISE_KIND = (
    ActionKind.FOLD,
    ActionKind.CHECK,
    ActionKind.CALL,
    ActionKind.RAISE,
)


@dataclass(frozen=True, slots=True)
class Action:
    """A player's decision. ``amount`` is the raise-to total for ``RAISE`` (the player's
    whole commitment on this street after the action), and ``None`` otherwise.

    >>> Action.raise_to(120)
    Action(kind=<ActionKind.RAISE: 'raise'>, amount=120)
    >>> str(Action.raise_to(120)), str(Action.call())
    ('raise 120', 'call')
    """

    kind: ActionKind
    amount: int | None = None

    @classmethod
    def fold(cls) -> Action:
        return _FOLD

    @classmethod
    def check(cls) -> Action:
        return _CHECK

    @classmethod
    def call(cls) -> Action:
        return _CALL

    @classmethod
    def raise_to(cls, amount: int) -> Action:
        return cls(ActionKind.RAISE, amount)

    def __str__(self) -> str:
        return self.kind.value if self.amount is None else f"{self.kind.value} {self.amount}"


_FOLD = Action(ActionKind.FOLD)
_CHECK = Action(ActionKind.CHECK)
_CALL = Action(ActionKind.CALL)


@dataclass(frozen=True, slots=True)
class LegalActions:
    """What the player to act may do. ``call_amount`` is what a call adds (0 when there
    is nothing to call); ``min_raise_to``/``max_raise_to`` are ``None`` when raising is
    not allowed, and equal when the only raise is all-in for less than a full raise."""

    seat: int
    can_fold: bool
    can_check: bool
    call_amount: int
    min_raise_to: int | None
    max_raise_to: int | None

    @property
    def can_call(self) -> bool:
        return self.call_amount > 0

    @property
    def can_raise(self) -> bool:
        return self.min_raise_to is not None

    @property
    def kinds(self) -> tuple[ActionKind, ...]:
        return _KINDS[
            self.can_fold, self.can_check, self.call_amount > 0, self.min_raise_to is not None
        ]

    def passive(self) -> Action:
        """Check when checking is legal, otherwise fold: the absent-player policy
        (docs/rules.md) and the substitute for a faulty bot's decision."""
        return _CHECK if self.can_check else _FOLD

    def or_passive(self, answer: object) -> Action:
        """``answer`` when it is an action the rules allow, otherwise :meth:`passive`: how
        a decision that is missing, faulty or illegal is played."""
        if isinstance(answer, Action) and self.refusal(answer) is None:
            return answer
        return self.passive()

    def allows(self, action: object) -> bool:
        return self.refusal(action) is None

    def verify(self, action: object) -> None:
        """Raise :class:`IllegalActionError` (with its reason) unless the rules allow ``action``."""
        refused = self.refusal(action)
        if refused is not None:
            raise refused

    def refusal(self, action: object) -> IllegalActionError | None:
        """Why the rules refuse ``action`` now, or ``None`` when they allow it: the one
        legality check, for the hand and for everyone who asks."""
        # Read untyped: ``action`` may be a bot's anything, and a raise of 100.0 is refused
        # by reason (a compiled caller does not turn it into a TypeError).
        kind = getattr(action, "kind", None)
        if kind is FOLD_KIND:
            if self.can_fold:
                return None
            return _refused(
                IllegalReason.NOTHING_TO_FOLD, "cannot fold: nothing is owed, check instead", action
            )
        if kind is CHECK_KIND:
            if self.can_check:
                return None
            return _refused(
                IllegalReason.CHECK_FACING_BET, f"cannot check: {self.call_amount} to call", action
            )
        if kind is CALL_KIND:
            if self.call_amount > 0:
                return None
            return _refused(
                IllegalReason.NOTHING_TO_CALL, "cannot call: nothing is owed, check instead", action
            )
        if kind is not RAISE_KIND:
            return _refused(IllegalReason.UNKNOWN_ACTION, f"not an action: {action!r}", action)
        amount: object = getattr(action, "amount", None)
        if type(amount) is not int:
            return _refused(
                IllegalReason.BAD_AMOUNT, f"a raise needs an integer amount, not {amount!r}", action
            )
        if self.min_raise_to is None or self.max_raise_to is None:
            return _refused(IllegalReason.RAISE_NOT_ALLOWED, "raising is not allowed now", action)
        if amount < self.min_raise_to:
            return _refused(
                IllegalReason.RAISE_BELOW_MIN,
                f"raise to {amount} is below the minimum {self.min_raise_to}",
                action,
            )
        if amount > self.max_raise_to:
            return _refused(
                IllegalReason.RAISE_ABOVE_MAX,
                f"raise to {amount} is above the maximum {self.max_raise_to}",
                action,
            )
        return None


def _refused(reason: IllegalReason, message: str, action: object) -> IllegalActionError:
    return IllegalActionError(reason, message, action=action)


# The legal kinds for each (fold, check, call, raise) permission, in that order: built once
# (every observation lists them).
_KINDS: dict[tuple[bool, bool, bool, bool], tuple[ActionKind, ...]] = {
    (fold, check, call, raise_): tuple(
        kind
        for kind, allowed in zip(
            (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.RAISE),
            (fold, check, call, raise_),
            strict=True,
        )
        if allowed
    )
    for fold in (False, True)
    for check in (False, True)
    for call in (False, True)
    for raise_ in (False, True)
}


@dataclass(frozen=True, slots=True)
class ActionRecord:
    """One action as it happened: ``chips`` is what it added to the pot (0 for a fold or
    check), ``raise_to`` the street total for a raise, ``all_in`` whether the player has
    nothing left to commit this deal after it."""

    seat: int
    street: Street
    kind: ActionKind
    chips: int
    raise_to: int | None
    all_in: bool


# The legal actions and the record of every action, made without their classes'
# ``__init__`` (see :mod:`dp_arena.frozen`): the engine makes one of each per decision.
make_legal_actions = maker(LegalActions)
make_action_record = maker(ActionRecord)
