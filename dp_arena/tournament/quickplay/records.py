"""What a Quick Play event records beyond its sessions (``results.json``'s ``details``):
every set as played, with its money and awards, and every player's money."""

from __future__ import annotations

from dataclasses import dataclass

from dp_arena.tournament.quickplay.money import Award
from dp_arena.tournament.quickplay.purses import PlayerMoney

__all__ = ["QuickPlayDetails", "SetRecord"]


@dataclass(frozen=True, slots=True)
class SetRecord:
    """One set as played: where it sits in continuous play, who sat where, its money and
    every amount won (``awards``; each is after the rake)."""

    set_number: int
    round: int
    contest: int
    seating: tuple[tuple[str, ...], ...]
    deals: int
    pool_cents: int
    set_money: tuple[int, ...]
    hand_money: tuple[tuple[int, ...], ...]
    awards: tuple[Award, ...]
    rake_cents: int


@dataclass(frozen=True, slots=True)
class QuickPlayDetails:
    game: str
    sets: tuple[SetRecord, ...]
    players: tuple[PlayerMoney, ...]
    rake_cents: int
    rake_basis_points: int
    ledger_total_before_cents: int
    ledger_total_after_cents: int
