"""The built-in ``random`` bot's strategy as a mixed answer: every legal action kind
equally likely, and a raise spread evenly over :data:`RAISE_SIZES` amounts from the
minimum to the maximum. The bot in ``agents/random_bot.py`` answers with it, and the
environments' own players of that bot use it too, so that they play it alike.

>>> from dp_arena.engine import LegalActions
>>> legal = LegalActions(0, can_fold=True, can_check=False, call_amount=10,
...                      min_raise_to=40, max_raise_to=1000)
>>> mix = uniform_mix(legal)
>>> [str(action) for action in mix.actions]  # doctest: +NORMALIZE_WHITESPACE
['fold', 'call', 'raise 40', 'raise 177', 'raise 314', 'raise 451', 'raise 589',
 'raise 726', 'raise 863', 'raise 1000']
>>> mix.weights[:3]
(333333333, 333333333, 41666667)
>>> print(uniform_mix(LegalActions(0, False, True, 0, 1000, 1000)))
check 0.5, raise 1000 0.5
"""

from __future__ import annotations

from fractions import Fraction

from dp_arena.engine.actions import Action, LegalActions
from dp_arena.engine.mixes import Mix

__all__ = ["RAISE_SIZES", "raise_amounts", "uniform_mix"]

RAISE_SIZES = 8


def raise_amounts(low: int, high: int) -> tuple[int, ...]:
    """:data:`RAISE_SIZES` amounts evenly spaced from ``low`` to ``high``, both included
    (fewer when the range holds fewer), rounded half up."""
    steps = RAISE_SIZES - 1
    return tuple(
        sorted(
            {
                low + (2 * index * (high - low) + steps) // (2 * steps)
                for index in range(RAISE_SIZES)
            }
        )
    )


def uniform_mix(legal: LegalActions) -> Mix:
    """Every legal kind with the same probability; a raise's share spread evenly over
    :func:`raise_amounts` of the legal range."""
    kinds = legal.kinds
    share = Fraction(1, len(kinds))
    entries: list[tuple[Action, Fraction]] = []
    for kind in kinds:
        if kind.value == "raise":
            assert legal.min_raise_to is not None and legal.max_raise_to is not None
            amounts = raise_amounts(legal.min_raise_to, legal.max_raise_to)
            entries += [(Action.raise_to(amount), share / len(amounts)) for amount in amounts]
        else:
            entries.append((Action(kind), share))
    return Mix(entries)
