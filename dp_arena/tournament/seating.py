"""Seating draws (docs/formats.md): pooled players divided into sections, and each section's
players placed at its tables by a seeded draw, with absent seats spread out.

Absent seats go to cells (table, seat) so that no table and no seat position holds two
of them while that is avoidable: tables and seat positions each hold as even a share of
them as can be (:func:`absent_cells`).

>>> players = ["a", "b", "c", "d", "e"]
>>> seating = seat_section(players, tables=2, seats=3, absent=1, draw=Draw(1, "x"))
>>> sum(row.count(None) for row in seating), sorted(p for row in seating for p in row if p)
(1, ['a', 'b', 'c', 'd', 'e'])
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from dp_arena.tournament.draws import Draw

__all__ = ["absent_cells", "divide_into_sections", "seat_section"]

Seating = tuple[tuple[str | None, ...], ...]


def divide_into_sections(
    players: Sequence[str], sizes: Sequence[int], draw: Draw
) -> list[list[str]]:
    """``players`` (in canonical order) shuffled and cut into sections of ``sizes``."""
    if sum(sizes) != len(players):
        raise ValueError(
            f"divide_into_sections: {len(players)} players do not fill sections {list(sizes)}"
        )
    shuffled = draw.shuffle(players)
    sections = []
    start = 0
    for size in sizes:
        sections.append(shuffled[start : start + size])
        start += size
    return sections


def absent_cells(tables: int, seats: int, absent: int, draw: Draw) -> list[tuple[int, int]]:
    """Cells (table index, seat) of ``absent`` absent players, spread out: every table
    holds ⌊absent/tables⌋ or ⌈absent/tables⌉ of them, every seat position ⌊absent/seats⌋ or
    ⌈absent/seats⌉.

    The k-th absent seat goes to table ``k mod T`` and seat ``(k + ⌊k / lcm(T, P)⌋) mod P``
    (distinct cells, balanced both ways), then tables and seats are relabelled by a
    seeded draw.
    """
    if not 0 <= absent < tables * seats:
        raise ValueError(f"absent_cells: {absent} absent seats do not fit {tables} x {seats}")
    table_order = draw.shuffle(range(tables))
    seat_order = draw.shuffle(range(seats))
    cycle = math.lcm(tables, seats)
    return [(table_order[k % tables], seat_order[(k + k // cycle) % seats]) for k in range(absent)]


def seat_section(
    players: Sequence[str], *, tables: int, seats: int, absent: int, draw: Draw
) -> Seating:
    """Each table's seats, table by table: a player, or ``None`` for an absent player."""
    if len(players) + absent != tables * seats:
        raise ValueError(
            f"seat_section: {len(players)} players and {absent} absent seats"
            f" do not fill {tables} x {seats}"
        )
    empty = set(absent_cells(tables, seats, absent, draw))
    order = iter(draw.shuffle(players))
    return tuple(
        tuple(None if (table, seat) in empty else next(order) for seat in range(seats))
        for table in range(tables)
    )
