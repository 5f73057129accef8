"""The rules' tables as data: the regular section chart, the short / Sit n Go structure
table, deals per session, carryover steps and prize percentages (docs/formats.md).

Percentages are kept in basis points (1/100 of a percent) so that 11.5 % is the
integer 1150 and every payout table adds up to exactly 10 000.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DEALS_BY_TABLE_SIZE",
    "REGULAR_CHART",
    "REGULAR_PAYOUTS",
    "ROUND_ROBIN_DEALS",
    "ROUND_ROBIN_SIZES",
    "SHORT_SPLIT_TWO_PLACES",
    "SHORT_STRUCTURE",
    "SNG_SHORT_SIZES",
    "ChartRow",
    "ShortRow",
    "ShortStage",
    "regular_payout",
]

# Deals per session by players per table: always whole rounds (docs/formats.md).
DEALS_BY_TABLE_SIZE: dict[int, int] = {2: 8, 3: 9, 4: 8, 5: 10, 6: 6, 7: 7, 8: 8}

ROUND_ROBIN_SIZES = (4, 6)
ROUND_ROBIN_DEALS = 6  # deals of one mini-match (docs/formats.md)


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


@dataclass(frozen=True, slots=True)
class ShortStage:
    """One session of a short event: ``tables`` x ``seats``; ``advancing`` of each seat
    position's ``tables`` players go on (``None`` in the last session)."""

    tables: int
    seats: int
    advancing: int | None


@dataclass(frozen=True, slots=True)
class ShortRow:
    """One row of the short / Sit n Go structure table (docs/formats.md). ``paid_places`` is how
    many places of each seat position of the last session are paid (1, or 2 for 33-36)."""

    start: int
    absent: int
    stages: tuple[ShortStage, ...]
    paid_places: int

    @property
    def winners(self) -> int:
        return self.stages[-1].seats * self.paid_places


def _short(start: int, absent: int, *stages: tuple[int, int, int | None]) -> ShortRow:
    paid = 2 if start >= 33 else 1
    row = ShortRow(start, absent, tuple(ShortStage(*stage) for stage in stages), paid)
    players = start
    for stage in row.stages:  # each session seats exactly the players the last one sent on
        assert stage.tables * stage.seats == players + (absent if stage is row.stages[0] else 0), (
            row
        )
        if stage.advancing is not None:
            players = stage.advancing * stage.seats
    return row


_SHORT_ROWS = [
    _short(6, 0, (3, 2, 2), (2, 2, None)),
    _short(7, 1, (2, 4, 1), (2, 2, None)),
    _short(8, 0, (2, 4, 1), (2, 2, None)),
    _short(9, 0, (3, 3, 2), (3, 2, None)),
    _short(10, 0, (5, 2, 2), (2, 2, None)),
    _short(11, 1, (4, 3, 2), (3, 2, None)),
    _short(12, 0, (4, 3, 2), (3, 2, None)),
    *(_short(n, 16 - n, (4, 4, 2), (2, 4, 1), (2, 2, None)) for n in (13, 14, 15, 16)),
    *(_short(n, 18 - n, (6, 3, 3), (3, 3, 2), (2, 3, None)) for n in (17, 18)),
    *(_short(n, 20 - n, (5, 4, 3), (4, 3, 2), (2, 3, None)) for n in (19, 20)),
    *(_short(n, 24 - n, (6, 4, 3), (4, 3, 2), (2, 3, None)) for n in (21, 22, 23, 24)),
    # The rules' structure table prints the middle session of 25, 29 and 30 as "3x5, 3 of
    # 5", which cannot be: 3 tables give seat positions of 3, and 9 players must go on to
    # the 3x3 session.
    # Read as 5 tables x 3 (the regular chart's shape for 15): 3 of 5 per seat position.
    _short(25, 0, (5, 5, 3), (5, 3, 3), (3, 3, None)),
    *(_short(n, 28 - n, (7, 4, 4), (4, 4, 2), (2, 4, None)) for n in (26, 27, 28)),
    *(_short(n, 30 - n, (6, 5, 3), (5, 3, 3), (3, 3, None)) for n in (29, 30)),
    *(_short(n, 32 - n, (4, 8, 2), (4, 4, 2), (2, 4, None)) for n in (31, 32)),
    *(_short(n, 36 - n, (6, 6, 3), (6, 3, 3), (3, 3, None)) for n in (33, 34, 35, 36)),
]
SHORT_STRUCTURE: dict[int, ShortRow] = {row.start: row for row in _SHORT_ROWS}

# Short Sit n Go starts as soon as one of these numbers of players has registered.
SNG_SHORT_SIZES = (6, 8, 10, 15, 20, 25)

# 33-36 players: seat-position winners share 70 %, runners-up 30 % (basis points).
SHORT_SPLIT_TWO_PLACES = (7000, 3000)
