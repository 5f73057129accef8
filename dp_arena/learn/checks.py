"""A training config's settings checked against their bounds, the one wording of the
refusals every learner's config gives: its whole numbers, and a fitted learner's
exploration and ridge.

>>> from dataclasses import dataclass
>>> @dataclass
... class Config:
...     rounds: int = 0
>>> check_ranges(Config(), "train", (("rounds", 1, 1000),))
Traceback (most recent call last):
...
dp_arena.errors.ConfigError: train: rounds must be an integer from 1 to 1_000, not 0
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Protocol

from dp_arena.errors import ConfigError

__all__ = ["Fitting", "check_fitting", "check_ranges"]


class Fitting(Protocol):
    """A config of a learner that fits action values (fitted control, self-play)."""

    @property
    def exploration(self) -> float: ...

    @property
    def ridge(self) -> float: ...


def check_ranges(config: object, where: str, ranges: Iterable[tuple[str, int, int]]) -> None:
    """Refuse ``config`` (a :class:`ConfigError` naming the field, its message headed
    ``where``) unless each named field is an integer, not a bool, from low to high."""
    for name, low, high in ranges:
        value = getattr(config, name)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ConfigError(
                f"{where}: {name} must be an integer from {low} to {high:_}, not {value!r}",
                field=name,
            )


def check_fitting(config: Fitting, where: str) -> None:
    """Refuse ``config`` unless its exploration (the share of decisions drawn at random)
    is in [0, 1] and its ridge (the fit's penalty) is non-negative and finite."""
    if not 0 <= config.exploration <= 1:
        raise ConfigError(f"{where}: exploration must be in [0, 1]", field="exploration")
    if not (0 <= config.ridge < math.inf):
        raise ConfigError(f"{where}: ridge must be non-negative", field="ridge")
