"""Bill Chen's pre-flop score of two hole cards, the one formula the built-in ``tag`` bot
plays by, its batched twin tabulates and the clairvoyance test measures hole-card
advantage against.

>>> from dp_arena.engine import parse_cards
>>> hands = ("AsAh", "KdKc", "AsKs", "AsKd", "Th9h", "2c2d", "7h2c")
>>> [chen_score(*parse_cards(hand)) for hand in hands]
[20, 16, 12, 10, 8, 5, -1]
"""

from __future__ import annotations

import math

from dp_arena.engine.cards import Card, card_rank, card_suit

__all__ = ["chen_score"]

# Chen points of the high card, by rank (0 = deuce .. 12 = ace), in half points.
_HALF_POINTS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 20)
# Points lost to the gap between the two ranks (0 = connected), in half points.
_GAP_PENALTY = (0, 2, 4, 8, 10)


def chen_score(first: Card, second: Card) -> int:
    """Bill Chen's pre-flop score of two hole cards, rounded up: from -1 for 72 offsuit
    to 20 for aces."""
    high, low = sorted((card_rank(first), card_rank(second)), reverse=True)
    if high == low:
        return max(5, _HALF_POINTS[high])  # a pair counts double: 2 x half points / 2
    half_points = _HALF_POINTS[high]
    if card_suit(first) == card_suit(second):
        half_points += 4
    gap = high - low - 1
    half_points -= _GAP_PENALTY[min(gap, 4)]
    if gap <= 1 and high < 10:  # connected or one-gapped cards below a queen straighten more
        half_points += 2
    return math.ceil(half_points / 2)
