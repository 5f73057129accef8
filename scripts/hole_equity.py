"""Write ``dp_arena/ratings/hole_equity.py``: every starting hand's exact showdown share
against one random hand, the expectation the clairvoyance test's hole-card term is
measured from (about 5 minutes).

    python scripts/hole_equity.py

For each class of starting hand (higher rank, lower rank, suited; 0 is a deuce, 12 an
ace) the share (chance to win plus half the chance of a split) of one of its hands
against each of the 1,225 hands an opponent can hold from the other 50 cards, over every
one of the 1,712,304 boards, added up in half points: the same for every hand of the
class (a change of suits changes nothing). Exact integers, so writing the table again
gives the same file; ``tests/ratings/test_clairvoyance.py`` checks entries against
fresh counts.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

from dp_arena.files import write_atomic
from dp_arena.ratings.runouts import outcome_counts

TABLE = Path(__file__).resolve().parents[1] / "dp_arena" / "ratings" / "hole_equity.py"
BOARDS = 1_712_304  # five cards of the 48 neither hand holds
OPPONENT_HANDS = 1_225  # two cards of the 50 one hand leaves
HEADER = '''"""Every starting hand's exact showdown share against one random hand, for the
clairvoyance test's hole-card term (:mod:`dp_arena.ratings.clairvoyance`): for each class
(higher rank, lower rank, suited; 0 is a deuce, 12 an ace), the half points (a win 2, a
split 1) one of its hands wins against each of the 1,225 hands from the other 50 cards
over each of the 1,712,304 boards, added up. Divided by :data:`DENOMINATOR`, the share.
Written by ``scripts/hole_equity.py``; do not edit.
"""

from __future__ import annotations

'''


def class_half_points(high: int, low: int, suited: bool) -> int:
    """The half points of the class's hand with its cards in the first suits (a card is
    ``4 x rank + suit``)."""
    mine = (4 * high, 4 * low + (0 if suited else 1))
    rest = [card for card in range(52) if card not in mine]
    total = 0
    for theirs in itertools.combinations(rest, 2):
        holes = (mine, theirs)
        counts = outcome_counts(holes, (), tuple(sorted((*mine, *theirs))))
        for order, count in counts.items():
            total += count * (2 if order[0] < order[1] else 1 if order[0] == order[1] else 0)
    return total


def classes() -> list[tuple[int, int, bool]]:
    return [
        (high, low, suited)
        for high in range(13)
        for low in range(high + 1)
        for suited in ((False,) if high == low else (False, True))
    ]


def main() -> None:
    lines = [
        HEADER,
        f"DENOMINATOR = 2 * {OPPONENT_HANDS:_} * {BOARDS:_}\n\n",
        "HALF_POINTS: dict[tuple[int, int, bool], int] = {\n",
    ]
    for index, (high, low, suited) in enumerate(classes()):
        points = class_half_points(high, low, suited)
        lines.append(f"    ({high}, {low}, {suited}): {points},\n")
        print(f"{index + 1}/169", file=sys.stderr, end="\r")
    lines.append("}\n")
    write_atomic(TABLE, "".join(lines))


if __name__ == "__main__":
    main()
