"""The limits a sandboxed bot runs under, with their defaults (see ``docs/sandbox.md``)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from dp_arena.errors import ConfigError
from dp_arena.records import to_json

__all__ = ["Limits"]

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Time, memory and resource limits of one sandboxed bot process.

    Times are in seconds of wall-clock time. A decision may take ``action_timeout``
    seconds; time beyond that is drawn from ``time_bank``, a budget per table-session,
    and a decision that exhausts both is a ``TIMEOUT`` fault. ``load_timeout`` bounds the
    start-up, from launching the process to its hello. The rest are operating-system
    limits (``setrlimit``): ``memory_bytes`` is the address space (``RLIMIT_AS``),
    ``cpu_seconds`` a whole-life backstop (``RLIMIT_CPU``; the wall clock is what times
    decisions), ``open_files``, ``processes`` (threads count too), ``file_size`` the
    largest file the bot may write, ``tmp_bytes`` the size of its private ``/tmp``.
    ``memory_bytes``, ``processes`` and ``cpu_seconds`` also bound the bot's whole
    process tree, through its budget (:mod:`dp_arena.sandbox.confinement.budget`).
    ``message_bytes`` is the longest line the dealer reads from the bot, and
    ``log_bytes`` how much of the bot's stderr (and stray output) is kept.
    """

    action_timeout: float = 1.0
    time_bank: float = 10.0
    load_timeout: float = 15.0
    memory_bytes: int = 1024 * MIB
    cpu_seconds: int = 600
    open_files: int = 64
    processes: int = 32
    file_size: int = 16 * MIB
    tmp_bytes: int = 64 * MIB
    message_bytes: int = 1 * MIB
    log_bytes: int = 1 * MIB

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ConfigError(
                    f"sandbox limits: {field.name} must be a positive number, not {value!r}",
                    field=field.name,
                )
            if field.type == "int" and not isinstance(value, int):
                raise ConfigError(
                    f"sandbox limits: {field.name} must be an integer, not {value!r}",
                    field=field.name,
                )

    def with_changes(self, **changes: Any) -> Limits:
        """A copy with some limits changed (validated like the original)."""
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return to_json(self)
