"""The regular tournament's tables as data (docs/formats.md): the section chart (players in
a section -> tables x players per table, how many advance) and the prize percentages by
final place.

Percentages are kept in basis points (1/100 of a percent) so that 11.5 % is the
integer 1150 and every payout table adds up to exactly 10 000.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["REGULAR_CHART", "REGULAR_PAYOUTS", "ChartRow", "regular_payout"]


@dataclass(frozen=True, slots=True)
class ChartRow:
    """One row of the regular section chart. ``advancing`` is ``None`` for the round-robin
    rows (4 and 6 players), whose ``deals`` are the whole round robin's."""

    players: int
    tables: int
    seats: int
    advancing: int | None
    deals: int

    @property
    def empty(self) -> int:
        return self.tables * self.seats - self.players

    @property
    def eliminated(self) -> int | None:
        return None if self.advancing is None else self.players - self.advancing


def _chart(rows: list[tuple[int, int, int, int | None, int]]) -> dict[int, ChartRow]:
    return {row[0]: ChartRow(*row) for row in rows}


# From the rules (docs/formats.md): players in section -> tables x players per table,
# advancing, deals.
REGULAR_CHART: dict[int, ChartRow] = _chart(
    [
        (4, 2, 2, None, 18),
        (6, 3, 2, None, 30),
        (8, 4, 2, 6, 8),
        (9, 3, 3, 6, 9),
        (10, 5, 2, 6, 8),
        (11, 4, 3, 6, 9),
        (12, 4, 3, 6, 9),
        (13, 5, 3, 9, 9),
        (14, 5, 3, 9, 9),
        (15, 5, 3, 9, 9),
        (16, 4, 4, 12, 8),
        (17, 3, 6, 12, 6),
        (18, 3, 6, 12, 6),
        (19, 5, 4, 12, 8),
        (20, 5, 4, 12, 8),
        (21, 3, 7, 14, 7),
        (22, 4, 6, 12, 6),
        (23, 4, 6, 12, 6),
        (24, 4, 6, 12, 6),
        (25, 5, 5, 15, 10),
        (26, 4, 7, 14, 7),
        (27, 4, 7, 14, 7),
        (28, 4, 7, 14, 7),
        (29, 5, 6, 18, 6),
        (30, 5, 6, 18, 6),
    ]
)

# From the rules (docs/formats.md): entrants (upper bound of the bracket) -> basis points
# by final place.
REGULAR_PAYOUTS: tuple[tuple[int | None, tuple[int, ...]], ...] = (
    (8, (10000,)),
    (18, (6000, 4000)),
    (28, (5000, 3000, 2000)),
    (38, (4200, 2600, 1800, 1400)),
    (48, (4000, 2400, 1600, 1200, 800)),
    (None, (3700, 2300, 1500, 1150, 750, 600)),
)


def regular_payout(entrants: int) -> tuple[int, ...]:
    """Basis points paid to places 1, 2, ... of a regular tournament of ``entrants``."""
    for upper, shares in REGULAR_PAYOUTS:
        if upper is None or entrants <= upper:
            return shares
    raise AssertionError("unreachable: the last bracket has no upper bound")
