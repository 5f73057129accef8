"""Quick Play prize money (docs/formats.md): one set's pool split into set money and hand money
per seat position, and the awards that the set's nets earn, in integer cents.

- pool = players x buy-in;
- set money = set % of the pool, split evenly among the P seat positions (remainder
  cents to the earlier seat positions), to each seat position's best total chips;
- hand money = the rest of the pool, split evenly among the seat positions and then
  among the D deals (remainder cents to the earlier seat positions, then deals), to
  each seat position's best net on that deal;
- tied players share an amount evenly, remainder cents to the earlier table;
- the house rake is taken from each amount won: ``gross x rake / 10 000`` rounded down,
  the player keeping the rest.

The rules' example: 12 players, 3 tables x 4, 6 deals, $2: set money $3.00 per seat
position, hand money $0.50 per seat position per deal.

>>> money = set_money(players=12, seats=4, deals=6, buy_in_cents=200, set_basis_points=5000)
>>> money.pool_cents, money.set_money[0], money.hand_money[0]
(2400, 300, (50, 50, 50, 50, 50, 50))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dp_arena.tournament.money import BASIS_POINTS, share_of, split_evenly

__all__ = ["Award", "SetMoney", "rake_of", "set_awards", "set_money"]


@dataclass(frozen=True, slots=True)
class SetMoney:
    """The money of one set: the pool, set money per seat position, and hand money per
    seat position per deal. Everything adds up to ``pool_cents``."""

    pool_cents: int
    set_money: tuple[int, ...]
    hand_money: tuple[tuple[int, ...], ...]

    @property
    def total_cents(self) -> int:
        return sum(self.set_money) + sum(sum(deals) for deals in self.hand_money)


@dataclass(frozen=True, slots=True)
class Award:
    """An amount won: ``deal`` is the deal index (0-based) for hand money, ``None`` for set
    money. ``gross_cents`` = ``net_cents`` + ``rake_cents``; ``shared_by`` counts the
    tied players who share the amount."""

    player: str
    seat: int
    deal: int | None
    gross_cents: int
    rake_cents: int
    net_cents: int
    shared_by: int


def set_money(
    *, players: int, seats: int, deals: int, buy_in_cents: int, set_basis_points: int
) -> SetMoney:
    """The set money and hand money of a set of ``players`` at tables of ``seats``."""
    if players <= 0 or seats <= 0 or deals <= 0 or players % seats:
        raise ValueError(
            f"set_money: {players} players do not fill whole tables of {seats}, or no deals"
        )
    if not 0 <= set_basis_points <= BASIS_POINTS:
        raise ValueError(
            f"set_money: set share must be 0..10000 basis points, not {set_basis_points}"
        )
    pool = players * buy_in_cents
    set_total = share_of(pool, set_basis_points)
    hand_total = pool - set_total
    hand_by_seat = split_evenly(hand_total, seats)
    return SetMoney(
        pool_cents=pool,
        set_money=split_evenly(set_total, seats),
        hand_money=tuple(split_evenly(cents, deals) for cents in hand_by_seat),
    )


def rake_of(gross_cents: int, rake_basis_points: int) -> int:
    """The house's rake of an amount won (rounded down)."""
    return gross_cents * rake_basis_points // BASIS_POINTS


def _best(values: Sequence[int]) -> list[int]:
    top = max(values)
    return [index for index, value in enumerate(values) if value == top]


def _award(
    amount: int,
    winners: list[int],
    players: Sequence[str],
    seat: int,
    deal: int | None,
    rake_basis_points: int,
) -> list[Award]:
    awards = []
    for index, gross in zip(winners, split_evenly(amount, len(winners)), strict=True):
        rake = rake_of(gross, rake_basis_points)
        awards.append(Award(players[index], seat, deal, gross, rake, gross - rake, len(winners)))
    return awards


def set_awards(
    money: SetMoney,
    seating: Sequence[Sequence[str]],
    deal_nets: Sequence[Sequence[Sequence[int]]],
    *,
    starting_stack: int,
    rake_basis_points: int = 0,
) -> list[Award]:
    """Every amount won in a set. ``seating[t][s]`` is the player at seat ``s`` of table
    ``t``; ``deal_nets[t][d][s]`` that player's net on deal ``d``. Amounts of zero cents
    are left out."""
    seats = len(money.set_money)
    deals = len(money.hand_money[0]) if money.hand_money else 0
    if any(len(row) != seats for row in seating) or len(deal_nets) != len(seating):
        raise ValueError("set_awards: the seating and the nets must cover every table and seat")
    if any(len(table) != deals for table in deal_nets):
        raise ValueError(f"set_awards: every table must have played {deals} deals")
    awards: list[Award] = []
    for seat in range(seats):
        players = [row[seat] for row in seating]
        for deal in range(deals):
            nets = [table[deal][seat] for table in deal_nets]
            amount = money.hand_money[seat][deal]
            if amount:
                awards += _award(amount, _best(nets), players, seat, deal, rake_basis_points)
        totals = [
            starting_stack + sum(table[deal][seat] for deal in range(deals)) for table in deal_nets
        ]
        if money.set_money[seat]:
            awards += _award(
                money.set_money[seat], _best(totals), players, seat, None, rake_basis_points
            )
    return awards
