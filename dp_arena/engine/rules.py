"""Table rules: the frozen configuration of a table, apart from any hand's state."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from dp_arena.errors import ConfigError

__all__ = ["Betting", "TableRules", "as_betting"]


class Betting(enum.StrEnum):
    """The betting structure of a table."""

    NO_LIMIT = "no-limit"
    POT_LIMIT = "pot-limit"


def as_betting(value: Betting | str, where: str = "") -> Betting:
    """``value`` as a betting structure (one, or its name), else a :class:`ConfigError`
    for the field ``betting``, its message headed ``where``.

    >>> as_betting("pot-limit")
    <Betting.POT_LIMIT: 'pot-limit'>
    >>> as_betting("limit")
    Traceback (most recent call last):
    ...
    dp_arena.errors.ConfigError: betting must be one of ['no-limit', 'pot-limit'], not 'limit'
    """
    if isinstance(value, Betting):
        return value
    try:
        return Betting(value)
    except ValueError:
        raise ConfigError(
            f"{where}betting must be one of {[b.value for b in Betting]}, not {value!r}",
            field="betting",
        ) from None


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
            object.__setattr__(self, "betting", as_betting(self.betting, "table rules: "))
        if self.cap is not None and (
            not isinstance(self.cap, int) or isinstance(self.cap, bool) or self.cap < self.big_blind
        ):
            raise ConfigError(
                "table rules: cap must be None or an integer of at least the big blind,"
                f" not {self.cap!r}",
                field="cap",
            )
