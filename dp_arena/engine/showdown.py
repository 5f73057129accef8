"""Settling a hand: pots from contribution levels, the best hands, split pots, odd chips.

Pots (docs/rules.md) are built from the deal totals of the players still in the hand: each
distinct total is a level, and a pot holds every player's chips between the previous
level and this one; players in the hand who reached the level are eligible for it. A
pot that only one player reached is an uncalled bet and goes back to that player. A
split gives each tied winner an equal share, and the odd chips go one at a time to the
tied winners in seat order starting left of the button.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from dp_arena.engine.evaluator import evaluate

if TYPE_CHECKING:
    from dp_arena.engine.state import HandState

__all__ = ["Pot", "settle", "split_pot"]


@dataclass(frozen=True, slots=True)
class Pot:
    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]


def split_pot(amount: int, winners: list[int], button: int, seat_count: int) -> dict[int, int]:
    """Shares of ``amount`` among ``winners``; odd chips one at a time from left of the button.

    >>> split_pot(101, [0, 2, 1], button=1, seat_count=3)
    {2: 34, 0: 34, 1: 33}
    """
    ordered = sorted(winners, key=lambda seat: (seat - button - 1) % seat_count)
    share, odd_chips = divmod(amount, len(ordered))
    return {seat: share + (1 if index < odd_chips else 0) for index, seat in enumerate(ordered)}


def settle(state: HandState) -> None:
    """Award every pot and set ``state.payoffs``, ``state.pots`` and ``state.showdown_values``."""
    committed = state.committed
    seat_count = len(committed)
    live = [seat for seat in range(seat_count) if not state.folded[seat]]
    won = [0] * seat_count
    pots = []
    if len(live) == 1:
        total = sum(committed)
        won[live[0]] = total
        pots.append(Pot(total, tuple(live), tuple(live)))
    else:
        values = {}
        for seat in live:
            hole = state.hole_cards[seat]
            if hole is None:
                raise ValueError(f"seat {seat} reached the showdown but its hole cards are unknown")
            values[seat] = evaluate((*hole, *state.board))
        state.showdown_values = values
        previous_level = 0
        for level in sorted({committed[seat] for seat in live}):
            amount = sum(min(chips, level) - min(chips, previous_level) for chips in committed)
            eligible = [seat for seat in live if committed[seat] >= level]
            best = min(values[seat] for seat in eligible)
            winners = [seat for seat in eligible if values[seat] == best]
            # Chips of folded players above every live total (none under these rules) stay in
            # the top pot.
            if level == max(committed[seat] for seat in live):
                amount += sum(max(0, chips - level) for chips in committed)
            for seat, share in split_pot(amount, winners, state.button, seat_count).items():
                won[seat] += share
            pots.append(Pot(amount, tuple(eligible), tuple(winners)))
            previous_level = level
    state.pots = tuple(pots)
    state.payoffs = tuple(won[seat] - committed[seat] for seat in range(seat_count))
