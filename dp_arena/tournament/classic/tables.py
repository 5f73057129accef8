"""The classic freezeout's tables (the classic house rules, docs/formats.md): the seat draw,
breaking and balancing tables, seating late entrants, and who posts the blinds at a table with
empty seats.

Tables are numbered from 1 and have ``max_seats`` physical seats (0 .. max_seats - 1);
a table is a map of occupied seat → player. Every random choice comes from a
:class:`~dp_arena.tournament.draws.Draw`, so the same seed moves the same players.

- **Start**: players are shuffled and dealt round the tables (sizes differ by at most
  one); each table's players take seats drawn among its ``max_seats``.
- **Breaking**: while the players fit on one table fewer, the table with the fewest
  players (the highest-numbered among equals) breaks; its players, in a drawn order,
  each go to the table then holding the fewest players (lowest number among equals),
  at a seat drawn among its empty ones.
- **Balancing**: while the largest table holds more players than the smallest by more
  than the allowed spread (1 with two tables, 2 with three or more: the house rules'
  "variance"), a player drawn at random from the largest table (the house rules' high card;
  lowest-numbered table among equals) moves to the smallest, at a drawn empty seat.
- **Late entrants** sit at the table with the fewest players that has an empty seat,
  at a drawn seat; when every table is full a new table opens (and balancing fills it).
- **Blinds** (a simplified dead-button rule): the big blind moves each hand to the next
  occupied seat after the seat that posted it last, so no player ever misses a big
  blind when others bust or move; the small blind and the button are the two occupied
  seats before it. Heads-up, the other player has the button and posts the small
  blind (the house rules: "the Small Blind will inherit the button"). Because the blinds are
  always posted by occupied seats, there is never a dead small blind or dead button:
  a player moved to a new table may post its big blind sooner or later than it would
  have at the old one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dp_arena.tournament.draws import Draw

__all__ = [
    "Move",
    "Tables",
    "allowed_spread",
    "blind_seats",
    "initial_tables",
    "rebalance",
    "seat_late_entrant",
]

Tables = dict[int, dict[int, str]]  # table number -> occupied seat -> player


@dataclass(frozen=True, slots=True)
class Move:
    """A player moved from one table to another (``from_table`` 0: a late entrant sat
    down); ``reason`` is ``"break"``, ``"balance"`` or ``"late"``."""

    hand: int
    player: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    reason: str


def allowed_spread(table_count: int) -> int:
    """The most the largest table may hold over the smallest (the classic house rules)."""
    return 1 if table_count <= 2 else 2


def initial_tables(players: Sequence[str], max_seats: int, draw: Draw) -> Tables:
    """The random draw for tables and seats at the start."""
    if not players:
        return {}
    count = math.ceil(len(players) / max_seats)
    tables: Tables = {number: {} for number in range(1, count + 1)}
    members: dict[int, list[str]] = {number: [] for number in tables}
    for index, player in enumerate(draw.shuffle(players)):
        members[index % count + 1].append(player)
    for number, group in members.items():
        seats = draw.shuffle(range(max_seats))[: len(group)]
        tables[number] = dict(zip(seats, group, strict=True))
    return tables


def _players(tables: Tables) -> int:
    return sum(len(table) for table in tables.values())


def _free_seat(table: dict[int, str], max_seats: int, draw: Draw) -> int:
    free = [seat for seat in range(max_seats) if seat not in table]
    return free[draw.below(len(free))]


def _smallest(tables: Tables, exclude: int | None = None) -> int:
    candidates = [number for number in sorted(tables) if number != exclude]
    return min(candidates, key=lambda number: len(tables[number]))


def rebalance(tables: Tables, max_seats: int, draw: Draw, hand: int) -> list[Move]:
    """Break and balance ``tables`` in place; the moves made."""
    moves: list[Move] = []
    while len(tables) > 1 and math.ceil(_players(tables) / max_seats) < len(tables):
        fewest = min(len(table) for table in tables.values())
        breaking = max(number for number, table in tables.items() if len(table) == fewest)
        leaving = tables.pop(breaking)
        for seat in draw.shuffle(sorted(leaving)):
            target = _smallest(tables)
            new_seat = _free_seat(tables[target], max_seats, draw)
            tables[target][new_seat] = leaving[seat]
            moves.append(Move(hand, leaving[seat], breaking, seat, target, new_seat, "break"))
    while len(tables) > 1:
        sizes = {number: len(table) for number, table in tables.items()}
        largest = min(sorted(tables), key=lambda number: -sizes[number])
        smallest = _smallest(tables)
        if sizes[largest] - sizes[smallest] <= allowed_spread(len(tables)):
            break
        seats = sorted(tables[largest])
        seat = seats[draw.below(len(seats))]
        player = tables[largest].pop(seat)
        new_seat = _free_seat(tables[smallest], max_seats, draw)
        tables[smallest][new_seat] = player
        moves.append(Move(hand, player, largest, seat, smallest, new_seat, "balance"))
    return moves


def seat_late_entrant(tables: Tables, player: str, max_seats: int, draw: Draw, hand: int) -> Move:
    """Seat a late entrant (in place): the emptiest table with a free seat, or a new one."""
    open_tables = [number for number in sorted(tables) if len(tables[number]) < max_seats]
    if open_tables:
        target = min(open_tables, key=lambda number: len(tables[number]))
    else:
        target = max(tables, default=0) + 1
        tables[target] = {}
    seat = _free_seat(tables[target], max_seats, draw)
    tables[target][seat] = player
    return Move(hand, player, 0, -1, target, seat, "late")


def blind_seats(occupied: Sequence[int], last_big_blind: int) -> tuple[int, int, int]:
    """Button, small blind and big blind seats at a table whose occupied seats are
    ``occupied`` (ascending), the big blind moving on from ``last_big_blind``.

    >>> blind_seats([0, 3, 7], last_big_blind=3)  # the big blind moves on to seat 7
    (0, 3, 7)
    >>> blind_seats([0, 7], last_big_blind=3)  # seat 3 left: still seat 7's turn
    (0, 0, 7)
    """
    after = [seat for seat in occupied if seat > last_big_blind]
    big_blind = after[0] if after else occupied[0]
    index = occupied.index(big_blind)
    count = len(occupied)
    if count == 2:
        other = occupied[1 - index]
        return other, other, big_blind
    return occupied[(index - 2) % count], occupied[(index - 1) % count], big_blind
