"""Collecting a config's problems: :class:`ConfigChecker` reads each value of the TOML as
a table, a string or an integer in its range, and keeps a problem, named by its dotted
field, for every one that is not (:mod:`dp_arena.tournament.loading` reads a config with
it, :mod:`dp_arena.tournament.entrant_checks` its entrants).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dp_arena.tournament.bounds import describe_range, shown
from dp_arena.tournament.config import Problem

__all__ = ["ConfigChecker", "type_name"]


class ConfigChecker:
    """Reads a config's values, keeping a :class:`Problem` for every bad one (a bad value
    reads as ``None``, a bad table as an empty one, so that checking goes on)."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.registry: Path | None = None  # where registry: entrants are looked up

    def add(self, field_name: str, message: str) -> None:
        self.problems.append(Problem(field_name, message))

    def keys(self, prefix: str, table: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
        for key in table:
            if key not in allowed:
                dotted = f"{prefix}.{key}" if prefix else key
                self.add(dotted, f"unknown key; allowed: {', '.join(allowed)}")

    def table(self, field_name: str, value: Any, *, required: bool = False) -> Mapping[str, Any]:
        if value is None:
            if required:
                self.add(field_name, "missing; a table is required")
            return {}
        if not isinstance(value, Mapping):
            self.add(field_name, f"must be a table, not {type_name(value)}")
            return {}
        return value

    def string(self, field_name: str, value: Any, *, required: bool = False) -> str | None:
        if value is None:
            if required:
                self.add(field_name, "missing; a string is required")
            return None
        if not isinstance(value, str) or not value.strip():
            self.add(field_name, f"must be a non-empty string, not {shown(value)}")
            return None
        return value.strip()

    def integer(
        self,
        field_name: str,
        value: Any,
        *,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> int | None:
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            self.add(field_name, f"must be an integer, not {type_name(value)} {shown(value)}")
            return None
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            if maximum is None:
                self.add(field_name, f"must be at least {minimum}, not {value}")
            else:
                allowed = describe_range(0 if minimum is None else minimum, maximum)
                self.add(field_name, f"must be {allowed}, not {shown(value)}")
            return None
        return value


def type_name(value: Any) -> str:
    """What a TOML value is, in words: ``"a string"``, ``"a table"``."""
    return {
        str: "a string",
        bool: "a boolean",
        float: "a float",
        list: "a list",
        dict: "a table",
    }.get(type(value), type(value).__name__)
