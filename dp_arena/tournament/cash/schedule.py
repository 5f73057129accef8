"""Who sits where at every deal of the duplicate cash game (docs/formats.md), as a pure
function of the config and the seed; and the **stretches** of deals during which no
one joins or leaves, each of which is played as one table unit per table.

- The first ``tables x seats`` entrants (config order) are seated by a seeded draw
  (:func:`~dp_arena.tournament.seating.seat_section`, draw ``"cash-seating"``), empty
  seats spread out and filled with absent players; the rest wait in a queue.
- After deal ``g`` a player leaves once it has played ``deals_per_player`` deals, or
  when ``Draw(seed, "cash-leave", g, player).below(10000)`` is below the leave chance
  in basis points. Its seat is played by an absent player.
- Before the next deal, waiting players take the empty seats in order (table by table,
  seat by seat).
- The game ends after ``deals`` deals, or sooner once no seat position holds two
  players and no one waits: nothing is left to settle.

A stretch's table unit starts its deals at the unit's seat 0 on the button (as every
table unit does); so that the button keeps moving one seat a deal across stretches,
the unit's seat ``i`` is the table's seat ``(i + rotation) mod seats`` where
``rotation`` is the stretch's first deal modulo ``seats``. Cards are dealt relative to
the button, so the rotation changes nothing at the table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from dp_arena.tournament.draws import Draw
from dp_arena.tournament.money import BASIS_POINTS
from dp_arena.tournament.seating import seat_section

__all__ = ["CashSchedule", "Stretch", "schedule_cash_game"]

Seating = tuple[tuple[str | None, ...], ...]


@dataclass(frozen=True, slots=True)
class Stretch:
    """Deals ``first_deal`` .. ``first_deal + deals - 1`` (0-based, counted over the whole
    game) with the same ``seating`` (``None``: an absent player)."""

    stretch: int
    first_deal: int
    deals: int
    seating: Seating

    @property
    def rotation(self) -> int:
        return self.first_deal % len(self.seating[0])

    @property
    def players(self) -> int:
        return sum(1 for row in self.seating for player in row if player is not None)

    @property
    def absent(self) -> int:
        return sum(1 for row in self.seating for player in row if player is None)


@dataclass(frozen=True, slots=True)
class CashSchedule:
    stretches: tuple[Stretch, ...]
    deals_played: tuple[tuple[str, int], ...]  # per entrant, in config order

    @property
    def deals(self) -> int:
        return sum(stretch.deals for stretch in self.stretches)


def _settled_seat_positions(seating: Seating) -> int:
    seats = len(seating[0])
    return sum(1 for seat in range(seats) if sum(row[seat] is not None for row in seating) >= 2)


def schedule_cash_game(
    players: Sequence[str],
    *,
    tables: int,
    seats: int,
    deals: int,
    seed: int,
    deals_per_player: int | None,
    leave_basis_points: int,
) -> CashSchedule:
    """The stretches of a cash game of ``players`` (in config order)."""
    capacity = tables * seats
    first = list(players[:capacity])
    queue = list(players[capacity:])
    order = {player: index for index, player in enumerate(players)}
    seating = [
        list(row)
        for row in seat_section(
            sorted(first, key=order.__getitem__),
            tables=tables,
            seats=seats,
            absent=capacity - len(first),
            draw=Draw(seed, "cash-seating"),
        )
    ]
    played: Counter[str] = Counter()
    rosters: list[Seating] = []
    for deal in range(deals):
        if _settled_seat_positions(tuple(map(tuple, seating))) == 0:
            break
        rosters.append(tuple(tuple(row) for row in seating))
        for row in seating:
            for seat, player in enumerate(row):
                if player is None:
                    continue
                played[player] += 1
                leaves = (deals_per_player is not None and played[player] >= deals_per_player) or (
                    leave_basis_points > 0
                    and Draw(seed, "cash-leave", deal, player).below(BASIS_POINTS)
                    < leave_basis_points
                )
                if leaves:
                    row[seat] = None
        for row in seating:
            for seat, player in enumerate(row):
                if player is None and queue:
                    row[seat] = queue.pop(0)
    stretches: list[Stretch] = []
    for deal, roster in enumerate(rosters):
        if stretches and stretches[-1].seating == roster:
            last = stretches[-1]
            stretches[-1] = Stretch(last.stretch, last.first_deal, last.deals + 1, roster)
        else:
            stretches.append(Stretch(len(stretches) + 1, deal, 1, roster))
    return CashSchedule(
        stretches=tuple(stretches),
        deals_played=tuple((player, played[player]) for player in players),
    )
