"""Actions a player takes, what the rules allow, and the records a hand keeps."""

from __future__ import annotations

import enum
from dataclasses import dataclass

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

    def allows(self, action: Action) -> bool:
        kind = action.kind
        if kind is ActionKind.FOLD:
            return self.can_fold
        if kind is ActionKind.CHECK:
            return self.can_check
        if kind is ActionKind.CALL:
            return self.can_call
        amount = action.amount
        return (
            kind is ActionKind.RAISE
            and self.min_raise_to is not None
            and self.max_raise_to is not None
            and type(amount) is int
            and self.min_raise_to <= amount <= self.max_raise_to
        )


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
