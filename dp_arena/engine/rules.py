"""Table rules: the frozen configuration of a table, apart from any hand's state."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from dp_arena.errors import ConfigError

__all__ = ["Betting", "TableRules"]


class Betting(enum.StrEnum):
    """The betting structure of a table."""

    NO_LIMIT = "no-limit"
    POT_LIMIT = "pot-limit"


@dataclass(frozen=True, slots=True)
class TableRules:
    """Seats, blinds, betting structure and cap of a table.

    ``cap`` is the most a player may commit in one deal, blinds included (docs/rules.md);
    ``None`` means no cap, so only the player's stack limits them (the classic freezeout).

    >>> TableRules(seat_count=6, small_blind=20, big_blind=40, betting=Betting.POT_LIMIT)
    TableRules(seat_count=6, small_blind=20, big_blind=40,
               betting=<Betting.POT_LIMIT: 'pot-limit'>, cap=1000)
    """

    seat_count: int
    small_blind: int
    big_blind: int
    betting: Betting = Betting.NO_LIMIT
    cap: int | None = 1000

    def __post_init__(self) -> None:
        for name in ("seat_count", "small_blind", "big_blind"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(
                    f"table rules: {name} must be an integer, not {value!r}", field=name
                )
        if not 2 <= self.seat_count <= 10:
            raise ConfigError(
                f"table rules: seat_count must be 2..10, not {self.seat_count}", field="seat_count"
            )
        if not 0 < self.small_blind <= self.big_blind:
            raise ConfigError(
                f"table rules: blinds must satisfy 0 < small_blind <= big_blind, not"
                f" {self.small_blind}/{self.big_blind}",
                field="small_blind",
            )
        if not isinstance(self.betting, Betting):
            try:
                object.__setattr__(self, "betting", Betting(self.betting))
            except ValueError:
                raise ConfigError(
                    f"table rules: betting must be one of {[b.value for b in Betting]},"
                    f" not {self.betting!r}",
                    field="betting",
                ) from None
        if self.cap is not None and (
            not isinstance(self.cap, int) or isinstance(self.cap, bool) or self.cap < self.big_blind
        ):
            raise ConfigError(
                "table rules: cap must be None or an integer of at least the big blind,"
                f" not {self.cap!r}",
                field="cap",
            )
