"""The structure table of the short tournament and the Short Sit n Go as data
(docs/formats.md): each starting size's sessions (tables x players per table, how many of
each seat position go on), the Sit n Go's sizes, and the split of the pool between
seat-position winners and runners-up (in basis points, 1/100 of a percent).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SHORT_SPLIT_TWO_PLACES", "SHORT_STRUCTURE", "SNG_SHORT_SIZES", "ShortRow", "ShortStage"]


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
