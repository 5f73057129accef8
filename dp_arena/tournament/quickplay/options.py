"""Quick Play's options (the ``[options]`` of its config), read and checked: see
:mod:`dp_arena.tournament.quickplay.format` for each one and its default."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dp_arena.tournament.bounds import MAX_CENTS, MAX_ENTRANTS, MAX_ROUNDS, MAX_SETS
from dp_arena.tournament.config import Problem
from dp_arena.tournament.option_checks import OptionChecks

__all__ = ["KNOWN_OPTIONS", "QuickPlayOptions", "read_options"]

KNOWN_OPTIONS = (
    "seats",
    "set_percent",
    "rake_percent",
    "sets",
    "sets_by_player",
    "leave_percent",
    "arrivals",
    "max_rounds",
    "ledger",
    "balance_cents",
    "credit_cents",
)


@dataclass(frozen=True, slots=True)
class QuickPlayOptions:
    seats: int | None  # None: chosen from the number of entrants
    set_basis_points: int
    rake_basis_points: int
    sets: int
    sets_by_player: tuple[tuple[str, int], ...]
    leave_basis_points: int
    arrivals: tuple[int, ...] | None
    max_rounds: int
    ledger: str | None
    balance_cents: int | None
    credit_cents: int | None

    def seats_for(self, entrants: int) -> int:
        if self.seats is not None:
            return self.seats
        return 4 if entrants >= 8 else 2


def read_options(options: Mapping[str, Any]) -> tuple[QuickPlayOptions, list[Problem]]:
    checks = OptionChecks(options, known=KNOWN_OPTIONS)
    result = QuickPlayOptions(
        seats=checks.integer("seats", None, low=2, high=6),
        set_basis_points=checks.percent("set_percent", default=5000),
        rake_basis_points=checks.percent("rake_percent", default=0),
        sets=checks.integer("sets", 1, low=1, high=MAX_SETS) or 1,
        sets_by_player=checks.player_integers("sets_by_player", low=1, high=MAX_SETS),
        leave_basis_points=checks.percent("leave_percent", default=0),
        arrivals=checks.integer_list("arrivals", low=0, high=MAX_ENTRANTS, longest=MAX_ROUNDS + 1),
        max_rounds=checks.integer("max_rounds", 100, low=1, high=MAX_ROUNDS) or 100,
        ledger=checks.string("ledger"),
        balance_cents=checks.integer("balance_cents", None, low=0, high=MAX_CENTS),
        credit_cents=checks.integer("credit_cents", None, low=1, high=MAX_CENTS),
    )
    return result, checks.problems
