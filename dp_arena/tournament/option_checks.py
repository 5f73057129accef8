"""Checking a format's ``[options]`` table: each value's type and range, every problem
named by its key (relative to ``options``) with the allowed values. Every number has a
largest value (see :mod:`dp_arena.tournament.bounds`), lists a longest length.

Percentages are read into basis points (1/100 of a percent) exactly, so that money is
never computed with floats: ``2.5`` is 250 basis points; a value with more than two
decimals is refused.

>>> checks = OptionChecks({"rake_percent": 2.5, "seats": 9}, known=("rake_percent", "seats"))
>>> checks.percent("rake_percent", default=0), checks.integer("seats", 4, low=2, high=6)
(250, 4)
>>> [str(problem) for problem in checks.problems]
['seats: must be an integer from 2 to 6, not 9']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, TypeVar

from dp_arena.errors import ConfigError
from dp_arena.tournament.bounds import describe_range, shown
from dp_arena.tournament.config import Problem
from dp_arena.tournament.interface import EventFormat

if TYPE_CHECKING:
    from dp_arena.tournament.config import EventConfig

__all__ = ["FormatWithOptions", "OptionChecks", "basis_points", "plan_problems", "valid_options"]

Options = TypeVar("Options")


def basis_points(value: int | float | str) -> int | None:
    """``value`` percent in basis points, or ``None`` when it is not a number with at most
    two decimals."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and abs(value) > 10**18:
        return None  # far out of any range, and too long for str()
    try:
        decimal = Decimal(str(value)) * 100
    except InvalidOperation:
        return None
    if not decimal.is_finite() or decimal != decimal.to_integral_value():
        return None
    return int(decimal)


class OptionChecks:
    """Reads options, collecting a :class:`Problem` for every bad value (the value's
    default is returned in its place, so checking goes on)."""

    def __init__(self, options: Mapping[str, Any], *, known: Sequence[str]) -> None:
        self.options = options
        self.problems: list[Problem] = []
        for key in options:
            if key not in known:
                self.problems.append(
                    Problem(key, f"unknown option; allowed: {', '.join(sorted(known))}")
                )

    def add(self, key: str, message: str) -> None:
        self.problems.append(Problem(key, message))

    def integer(self, key: str, default: int | None, *, low: int, high: int) -> int | None:
        value = self.options.get(key)
        if value is None:
            return default
        if not _integer_in(value, low, high):
            self.add(key, f"must be {describe_range(low, high)}, not {shown(value)}")
            return default
        return int(value)

    def percent(self, key: str, *, default: int, high: int = 100) -> int:
        """A percentage 0..``high`` in basis points (``default`` is in basis points)."""
        value = self.options.get(key)
        if value is None:
            return default
        points = basis_points(value) if isinstance(value, (int, float)) else None
        if points is None or not 0 <= points <= high * 100:
            self.add(
                key,
                f"must be a percentage from 0 to {high} with at most two decimals,"
                f" not {shown(value)}",
            )
            return default
        return points

    def choice(self, key: str, default: str, allowed: Sequence[str]) -> str:
        value = self.options.get(key)
        if value is None:
            return default
        if value not in allowed:
            self.add(key, f"must be one of {', '.join(map(repr, allowed))}, not {shown(value)}")
            return default
        return str(value)

    def string(self, key: str) -> str | None:
        value = self.options.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            self.add(key, f"must be a non-empty string, not {shown(value)}")
            return None
        return value

    def integer_list(
        self, key: str, *, low: int, high: int, longest: int
    ) -> tuple[int, ...] | None:
        """A non-empty list of at most ``longest`` integers, each ``low`` to ``high``."""
        value = self.options.get(key)
        if value is None:
            return None
        if (
            not isinstance(value, list)
            or not 0 < len(value) <= longest
            or not all(_integer_in(item, low, high) for item in value)
        ):
            self.add(
                key,
                f"must be a list of 1 to {longest:_} integers, each"
                f" {describe_range(low, high).removeprefix('an integer ')},"
                f" not {shown(value)}",
            )
            return None
        return tuple(value)

    def player_integers(self, key: str, *, low: int, high: int) -> tuple[tuple[str, int], ...]:
        """A table of player name → integer (``{ "alice" = 3 }``), sorted by name."""
        value = self.options.get(key)
        if value is None:
            return ()
        if not isinstance(value, Mapping):
            self.add(key, f"must be a table of player name = integer, not {shown(value)}")
            return ()
        pairs = []
        for player, number in value.items():
            if not _integer_in(number, low, high):
                self.add(
                    f"{key}.{player}", f"must be {describe_range(low, high)}, not {shown(number)}"
                )
                continue
            pairs.append((str(player), number))
        return tuple(sorted(pairs))


def _integer_in(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def plan_problems(plan: Callable[[EventConfig], object], config: EventConfig) -> list[Problem]:
    """The problem a format's ``plan`` finds with a whole config (options that name
    entrants, table settings the format cannot take), as a config check reports it."""
    try:
        plan(config)
    except ConfigError as error:
        field = error.field or ""
        message = str(error)
        if field and message.startswith(f"{field}: "):
            message = message[len(field) + 2 :]
        return [Problem(field, message)]
    return []


def valid_options(
    read: Callable[[Mapping[str, Any]], tuple[Options, list[Problem]]], config: EventConfig
) -> Options:
    """A config's ``[options]`` as a format reads them (``read``); :class:`ConfigError`
    for the first problem. A config from the config check has none: this guards configs
    made by hand."""
    options, problems = read(dict(config.options))
    if problems:
        raise ConfigError(f"options.{problems[0]}", field=f"options.{problems[0].field}")
    return options


class FormatWithOptions(EventFormat):
    """A format with an ``[options]`` table of its own, read by its ``read_options`` (the
    options and every problem with them), and whose plan checks a whole config: options
    that name entrants, table settings it cannot take (:func:`plan_problems`)."""

    read_options: Callable[[Mapping[str, Any]], tuple[object, list[Problem]]]

    def check_options(self, options: Mapping[str, Any]) -> list[Problem]:
        return self.read_options(options)[1]

    def check_config(self, config: EventConfig) -> list[Problem]:
        """Problems only the whole config shows (run by the config check)."""
        return plan_problems(self.plan, config)
