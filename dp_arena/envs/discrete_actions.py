"""The discrete actions of the environments: fold, check/call and a few raise sizes,
their legality mask, and their translation into engine actions.

Action ``0`` folds, ``1`` checks or calls (whichever is legal), and each further action
raises to one configured size, clipped to the legal range ``[min_raise_to,
max_raise_to]``:

- ``"min"``: the minimum raise;
- a positive number ``f``: a raise of ``f`` times the pot, the pot counting every chip
  committed this deal plus what the raiser must first call (``1`` is a pot-sized raise,
  the pot-limit maximum); raise-to = current bet + ⌊f x (pot + owed)⌋;
- ``"all-in"`` (or ``"max"``): the maximum, which is all-in in no-limit and the pot
  limit in pot-limit.

The mask marks each action the rules allow now: fold only when something is owed,
check/call always (the player to act can always do one of the two), the raises only
when raising is allowed. Two raise sizes may clip to the same amount; both stay legal.

>>> from dp_arena.engine import LegalActions
>>> table = ActionTable(("min", 0.5, 1, "all-in"))
>>> table.labels
('fold', 'check/call', 'raise min', 'raise 0.5 pot', 'raise 1 pot', 'raise all-in')
>>> legal = LegalActions(seat=0, can_fold=True, can_check=False, call_amount=10,
...                      min_raise_to=40, max_raise_to=1000)
>>> table.mask(legal)
[1, 1, 1, 1, 1, 1]
>>> [str(table.to_action(i, legal, pot=30, current_bet=20)) for i in range(6)]
['fold', 'call', 'raise 40', 'raise 40', 'raise 60', 'raise 1000']
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from dp_arena.engine.actions import Action, LegalActions
from dp_arena.errors import ConfigError, IllegalActionError, IllegalReason

__all__ = ["CALL", "DEFAULT_RAISE_SIZES", "FOLD", "ActionTable", "RaiseSize"]

FOLD = 0
CALL = 1  # check when nothing is owed, call otherwise

RaiseSize = str | float | int
DEFAULT_RAISE_SIZES: tuple[RaiseSize, ...] = ("min", 0.5, 1, "all-in")

_MIN = "min"
_MAX = "all-in"


class ActionTable:
    """The discrete actions for one tuple of raise sizes (validated here)."""

    __slots__ = ("_fractions", "_masks", "_parts", "labels", "raise_sizes", "size")

    def __init__(self, raise_sizes: Sequence[RaiseSize] = DEFAULT_RAISE_SIZES) -> None:
        if isinstance(raise_sizes, (str, bytes)) or not isinstance(raise_sizes, Sequence):
            raise ConfigError(
                f"raise_sizes must be a sequence, not {raise_sizes!r}", field="raise_sizes"
            )
        fractions: list[tuple[int, int] | str] = []
        labels = ["fold", "check/call"]
        for index, size in enumerate(raise_sizes):
            if isinstance(size, str) and size.lower() in ("min", "max", "all-in", "allin"):
                kind = _MIN if size.lower() == "min" else _MAX
                fractions.append(kind)
                labels.append(f"raise {kind}")
            elif isinstance(size, (int, float)) and not isinstance(size, bool) and 0 < size <= 100:
                # Fraction(str(...)) keeps 0.5 exact; chips are integers, and so is every amount.
                exact = Fraction(str(size))
                fractions.append((exact.numerator, exact.denominator))
                labels.append(f"raise {size:g} pot")
            else:
                raise ConfigError(
                    f"raise_sizes[{index}] must be 'min', 'all-in' or a pot fraction"
                    f" in (0, 100], not {size!r}",
                    field=f"raise_sizes[{index}]",
                )
        self.raise_sizes = tuple(raise_sizes)
        self._fractions = tuple(fractions)
        # By action index, for raise_to_array: the fraction's numerator and denominator
        # (0 / 1 for the others), and whether it is the minimum or the all-in.
        self._parts = np.array(
            [(0, 1, 0, 0), (0, 1, 0, 0)]
            + [
                (*size, 0, 0) if isinstance(size, tuple) else (0, 1, size == _MIN, size == _MAX)
                for size in fractions
            ],
            dtype=np.int64,
        )
        self.labels = tuple(labels)
        self.size = len(labels)
        # The mask depends only on whether folding and raising are allowed: four arrays.
        self._masks = {
            (can_fold, can_raise): np.array(
                [int(can_fold), 1, *([int(can_raise)] * (self.size - 2))], dtype=np.int8
            )
            for can_fold in (False, True)
            for can_raise in (False, True)
        }

    def mask(self, legal: LegalActions) -> list[int]:
        """1 for each action the rules allow now, 0 otherwise."""
        raise_flag = 1 if legal.min_raise_to is not None else 0
        return [1 if legal.can_fold else 0, 1, *([raise_flag] * (self.size - 2))]

    def mask_array(self, legal: LegalActions) -> np.ndarray:
        """:meth:`mask` as a fresh ``int8`` array (the environment's hot path)."""
        return self._masks[legal.can_fold, legal.min_raise_to is not None].copy()

    def mask_array_for(self, can_fold: bool, can_raise: bool) -> np.ndarray:
        """The mask, as a fresh array, when folding and raising are (not) allowed: every
        mask is one of these four."""
        return self._masks[can_fold, can_raise].copy()

    def raise_to(self, index: int, legal: LegalActions, *, pot: int, current_bet: int) -> int:
        """The raise-to amount of raise action ``index``, clipped to the legal range."""
        low, high = legal.min_raise_to, legal.max_raise_to
        assert low is not None and high is not None
        size = self._fractions[index - 2]
        if size == _MIN:
            return low
        if size == _MAX:
            return high
        assert isinstance(size, tuple)
        # What the raiser owes is part of the pot a pot-sized raise is measured on; the
        # fraction is exact, in integers: ⌊f x (pot + owed)⌋.
        numerator, denominator = size
        amount = current_bet + numerator * (pot + legal.call_amount) // denominator
        return low if amount < low else min(amount, high)

    def raise_to_array(
        self,
        indices: np.ndarray,
        low: np.ndarray,
        high: np.ndarray,
        *,
        pot: np.ndarray,
        call_amount: np.ndarray,
        current_bet: np.ndarray,
    ) -> np.ndarray:
        """:meth:`raise_to` for many decisions at once (the vector environment): raise
        action ``indices[i]`` with legal range ``[low[i], high[i]]``, in ``int64``."""
        parts = self._parts.take(indices, axis=0)
        amount = current_bet + parts[:, 0] * (pot + call_amount) // parts[:, 1]
        amount = np.minimum(np.maximum(amount, low), high)  # low <= high
        amounts: np.ndarray = np.where(
            parts[:, 2] == 1, low, np.where(parts[:, 3] == 1, high, amount)
        )
        return amounts

    def largest_fraction_part(self) -> int:
        """The largest numerator or denominator of the pot-fraction sizes (1 when there is
        none): what bounds the integers :meth:`raise_to_array` multiplies."""
        return max(
            (part for size in self._fractions if isinstance(size, tuple) for part in size),
            default=1,
        )

    def to_action(
        self, index: object, legal: LegalActions, *, pot: int, current_bet: int
    ) -> Action:
        """The engine action of discrete action ``index``; an index the mask forbids raises
        :class:`~dp_arena.errors.IllegalActionError` naming the action and the mask."""
        if isinstance(index, bool) or not hasattr(index, "__index__"):
            raise self._illegal(
                IllegalReason.UNKNOWN_ACTION, index, legal, "is not an integer action"
            )
        position = int(index.__index__())  # numpy integers included
        if not 0 <= position < self.size:
            raise self._illegal(
                IllegalReason.UNKNOWN_ACTION, position, legal, f"is outside Discrete({self.size})"
            )
        if position == FOLD:
            if not legal.can_fold:
                raise self._illegal(
                    IllegalReason.NOTHING_TO_FOLD, position, legal, "is masked: nothing is owed"
                )
            return Action.fold()
        if position == CALL:
            return Action.call() if legal.call_amount else Action.check()
        if legal.min_raise_to is None:
            raise self._illegal(
                IllegalReason.RAISE_NOT_ALLOWED,
                position,
                legal,
                "is masked: raising is not allowed now",
            )
        return Action.raise_to(self.raise_to(position, legal, pot=pot, current_bet=current_bet))

    def _illegal(
        self, reason: IllegalReason, index: object, legal: LegalActions, why: str
    ) -> IllegalActionError:
        label = (
            f" ({self.labels[index]})" if isinstance(index, int) and 0 <= index < self.size else ""
        )
        return IllegalActionError(
            reason,
            f"action {index!r}{label} {why};"
            f" action_mask is {self.mask(legal)} for {list(self.labels)}",
            action=index,
        )
