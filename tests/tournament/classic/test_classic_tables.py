"""The classic freezeout's tables and payout, worked by hand and as properties: seat
draws, breaking and balancing within the classic house rules' limits, late entrants, who posts the
blinds (heads-up button rule), and whole-unit payouts that add up to the entrants."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dp_arena.tournament.classic.payout import paid_places, payout_units
from dp_arena.tournament.classic.tables import (
    Tables,
    allowed_spread,
    blind_seats,
    initial_tables,
    rebalance,
    seat_late_entrant,
)
from dp_arena.tournament.draws import Draw


def _tables(*sizes: int) -> Tables:
    """Tables 1, 2, ... holding ``sizes`` players in seats 0, 1, ..."""
    return {
        number: {seat: f"t{number}s{seat}" for seat in range(size)}
        for number, size in enumerate(sizes, start=1)
    }


def _sizes(tables: Tables) -> dict[int, int]:
    return {number: len(table) for number, table in tables.items()}


def _everyone(tables: Tables) -> list[str]:
    return sorted(player for table in tables.values() for player in table.values())


# -- payout ----------------------------------------------------------------------------


def test_payout_units_worked_by_hand() -> None:
    # 9 entrants: 3 paid, 1 unit each, the other 6 by weights 9 : 2 : 1 → 4.5, 1, 0.5;
    # rounded down 4, 1, 0 and the unit left over to the larger fraction, first place
    # before third among equals: 6, 2, 1.
    assert payout_units(9) == (6, 2, 1)
    # 6 entrants: 2 paid, 4 more units by 6 : 1 → 3.43, 0.57 → 3, 0 + 1 to second: 4, 2.
    assert payout_units(6) == (4, 2)
    assert payout_units(3) == (3,) and payout_units(2) == (2,)


def test_payout_meets_the_seeds_design_criteria() -> None:
    for entrants in range(1, 1001):
        units = payout_units(entrants)
        assert sum(units) == entrants  # units add up to the entrants
        assert len(units) == paid_places(entrants) >= entrants / 3  # one player in three paid
        assert all(unit >= 1 for unit in units)  # every paid place gets its entry fee back
        assert list(units) == sorted(units, reverse=True)
        if len(units) > 1:
            assert units[0] >= 2 * units[1]  # a big gap between first and second


# -- tables ------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 9, 10, 11, 23, 47, 100])
def test_the_starting_draw(players: int) -> None:
    names = [f"p{index}" for index in range(players)]
    tables = initial_tables(names, 10, Draw(3, "seating"))
    assert len(tables) == math.ceil(players / 10)
    sizes = list(_sizes(tables).values())
    assert max(sizes) - min(sizes) <= 1 and max(sizes) <= 10
    assert _everyone(tables) == sorted(names)
    assert all(0 <= seat < 10 for table in tables.values() for seat in table)


def test_balancing_worked_by_hand() -> None:
    # Two tables 10 and 7: one player moves (the allowed spread is 1): 9 and 8.
    tables = _tables(10, 7)
    moves = rebalance(tables, 10, Draw(1, "x"), hand=5)
    assert _sizes(tables) == {1: 9, 2: 8} and len(moves) == 1
    assert (moves[0].from_table, moves[0].to_table, moves[0].reason) == (1, 2, "balance")
    # Three tables 9, 9, 6: spread 3 > 2; one player from table 1 to table 3: 8, 9, 7.
    tables = _tables(9, 9, 6)
    rebalance(tables, 10, Draw(1, "x"), hand=5)
    assert _sizes(tables) == {1: 8, 2: 9, 3: 7}
    # Three tables 9, 8, 7: within the allowed spread of 2, nobody moves.
    tables = _tables(9, 8, 7)
    assert rebalance(tables, 10, Draw(1, "x"), hand=5) == []


def test_breaking_worked_by_hand() -> None:
    """5, 4 and 3 players fit on two tables: table 3 breaks; its players go one by one to
    the table with the fewest (2, then 1, then 2): 6 and 6."""
    tables = _tables(5, 4, 3)
    before = _everyone(tables)
    moves = rebalance(tables, 10, Draw(1, "x"), hand=9)
    assert _sizes(tables) == {1: 6, 2: 6}
    assert [(move.to_table, move.reason) for move in moves] == [
        (2, "break"),
        (1, "break"),
        (2, "break"),
    ]
    assert _everyone(tables) == before


@given(
    st.lists(st.integers(1, 10), min_size=1, max_size=12),
    st.integers(0, 1000),
    st.integers(2, 10),
)
def test_rebalancing_always_ends_within_the_limits(
    sizes: list[int], seed: int, max_seats: int
) -> None:
    tables = _tables(*(min(size, max_seats) for size in sizes))
    before = _everyone(tables)
    rebalance(tables, max_seats, Draw(seed, "x"), hand=1)
    after = _sizes(tables)
    assert _everyone(tables) == before  # nobody lost or seated twice
    assert all(size <= max_seats for size in after.values())
    assert len(tables) == math.ceil(len(before) / max_seats)  # no table left to break
    assert max(after.values()) - min(after.values()) <= allowed_spread(len(tables))
    assert all(len(set(table)) == len(table) for table in tables.values())


def test_late_entrants_sit_at_the_emptiest_table_or_open_one() -> None:
    tables = _tables(6, 5, 6)
    move = seat_late_entrant(tables, "late", 10, Draw(2, "x"), hand=3)
    assert (move.to_table, move.reason) == (2, "late") and "late" in tables[2].values()
    full = _tables(10, 10)
    move = seat_late_entrant(full, "late", 10, Draw(2, "x"), hand=3)
    assert move.to_table == 3 and full[3] == {move.to_seat: "late"}
    # Balancing fills the new table, one player at a time from the largest table, until
    # three tables differ by at most 2: 10 10 1, 9 10 2, 9 9 3, 8 9 4, 8 8 5, 7 8 6.
    moves = rebalance(full, 10, Draw(2, "y"), hand=3)
    assert _sizes(full) == {1: 7, 2: 8, 3: 6} and len(moves) == 5


def test_the_big_blind_moves_on_and_the_heads_up_button_rule() -> None:
    # Seats 1, 4, 6, 8 occupied; seat 4 posted the big blind last: seat 6 posts it now,
    # seat 4 the small blind, seat 1 has the button.
    assert blind_seats([1, 4, 6, 8], last_big_blind=4) == (1, 4, 6)
    # Seat 6 busted meanwhile: the big blind still moves on past seat 6, to seat 8.
    assert blind_seats([1, 4, 8], last_big_blind=6) == (1, 4, 8)
    # Wrapping round the table.
    assert blind_seats([1, 4, 8], last_big_blind=8) == (4, 8, 1)
    # Down to two players (seat 4 busted; seat 8 was the big blind): the player due the
    # big blind (seat 1) posts it; the other has the button and the small blind.
    assert blind_seats([1, 8], last_big_blind=8) == (8, 8, 1)
    assert blind_seats([1, 8], last_big_blind=1) == (1, 1, 8)  # and they alternate
