"""Write ``dp_arena/learn/preflop_table.py``: the learned bot's pre-flop equity of every
starting-hand class against one to four random hands, as
:func:`dp_arena.learn.features.estimate_preflop_equity` makes it (about 7 s).

    python scripts/preflop_table.py

The estimates are seeded from the cards, so writing the table again gives the same
file; ``tests/envs/test_preflop_table.py`` checks entries against fresh estimates.
"""

from __future__ import annotations

from pathlib import Path

from dp_arena.files import write_atomic
from dp_arena.learn.features import (
    PREFLOP_SAMPLES,
    estimate_preflop_equity,
    preflop_classes,
)

TABLE = Path(__file__).resolve().parents[1] / "dp_arena" / "learn" / "preflop_table.py"
HEADER = f'''"""Pre-flop equity of every starting-hand class, made ahead for the learned bot's
features (:func:`dp_arena.learn.features.preflop_equity`): for each class (higher
rank, lower rank, suited; 0 is a deuce, 12 an ace), the points its representative won
against 1, 2, 3 and 4 random hands over {PREFLOP_SAMPLES:,} samples, counted in halves
(a tie is half a point). Written by ``scripts/preflop_table.py``; do not edit.
"""

from __future__ import annotations

PREFLOP_HALF_POINTS: dict[tuple[int, int, bool], tuple[int, int, int, int]] = {{
'''


def main() -> None:
    lines = [HEADER]
    for hand_class in preflop_classes():
        won = []
        for opponents in range(1, 5):
            estimate = estimate_preflop_equity(hand_class, opponents)
            half_points = round(estimate * 2 * PREFLOP_SAMPLES)
            assert half_points / (2 * PREFLOP_SAMPLES) == estimate  # the very same float
            won.append(half_points)
        lines.append(f"    {hand_class!r}: {tuple(won)!r},\n")
    lines.append("}\n")
    # Whole or not at all: this very script imports the table it rewrites.
    write_atomic(TABLE, "".join(lines))
    print(f"wrote {TABLE} ({len(lines) - 2} classes)")


if __name__ == "__main__":
    main()
