"""The largest (and smallest) value of every number an organiser writes in a config.

Each bound is far beyond any real event, and near enough that a typing slip (a few
extra zeros) is refused with the field's name before it can fill the memory or run for
days: an event of a million entrants plans in seconds, a session of the most deals
plays in minutes. ``docs/formats.md`` lists them.

>>> describe_range(1, MAX_ENTRANTS)
'an integer from 1 to 1_000_000'
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "LIMIT_RANGES",
    "MAX_BLIND_LEVELS",
    "MAX_CENTS",
    "MAX_CHIPS",
    "MAX_CONFIG_BYTES",
    "MAX_DEALS",
    "MAX_ENTRANTS",
    "MAX_FAULTS",
    "MAX_HAND_ROUNDS",
    "MAX_LEVEL",
    "MAX_PLAYER_SETS",
    "MAX_ROUNDS",
    "MAX_SETS",
    "describe_range",
    "limit_range",
    "shown",
]

MAX_CONFIG_BYTES = 128 * 1024 * 1024  # a config file (a million [[entrants]] take ~50 MB)
MAX_ENTRANTS = 1_000_000  # entrants of one event ([[entrants]] and [field] together)
MAX_CHIPS = 1_000_000_000  # the cap, blinds, starting stacks
MAX_CENTS = 10_000_000_000  # any amount of money: $100,000,000
MAX_DEALS = 10_000  # deals of one session at one table (and of a cash game)
MAX_FAULTS = 10_000  # faults a bot may make in a session before it is benched
MAX_ROUNDS = 10_000  # Quick Play rounds
MAX_SETS = 1_000  # Quick Play sets of one player
MAX_PLAYER_SETS = 2_000_000  # Quick Play: every player's sets together (the plan's size)
MAX_HAND_ROUNDS = 100_000  # a classic freezeout's safety stop
MAX_BLIND_LEVELS = 1_000  # a classic freezeout's blind levels listed
MAX_LEVEL = 1_000  # a classic freezeout's level numbers (late registration)

_KIB = 1024
_MIB = 1024 * _KIB
_GIB = 1024 * _MIB

# Sandbox limits (dp_arena.sandbox.limits.Limits): (smallest, largest); seconds or bytes.
LIMIT_RANGES: Mapping[str, tuple[int | float, int | float]] = {
    "action_timeout": (0.001, 3600.0),
    "time_bank": (0.001, 86400.0),
    "load_timeout": (0.001, 3600.0),
    "memory_bytes": (_MIB, 1024 * _GIB),
    "cpu_seconds": (1, 7 * 86400),
    "open_files": (1, 65536),
    "processes": (1, 65536),
    "file_size": (1, 1024 * _GIB),
    "tmp_bytes": (1, 64 * _GIB),
    "message_bytes": (1, 256 * _MIB),
    "log_bytes": (1, _GIB),
}
# A limit added to the sandbox before it is given a range here.
_ANY_LIMIT: tuple[int | float, int | float] = (0.001, 2**50)


def limit_range(name: str) -> tuple[int | float, int | float]:
    """The smallest and largest value of the sandbox limit ``name``."""
    return LIMIT_RANGES.get(name, _ANY_LIMIT)


def describe_range(low: int | float, high: int | float, *, integer: bool = True) -> str:
    """How an error message states the allowed values (numbers as TOML can write them).

    >>> describe_range(0.001, 3600.0, integer=False)
    'a number from 0.001 to 3600'
    """
    kind = "an integer" if integer else "a number"
    return f"{kind} from {_number(low)} to {_number(high)}"


def shown(value: object) -> str:
    """A refused value as an error message shows it: never thousands of digits or items.

    >>> shown(10**5000), shown(list(range(10**6))), shown("seven")
    ('a number of about 5_001 digits', 'a list of 1_000_000 items', "'seven'")
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 100:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1:_} digits"
    if isinstance(value, (list, dict)) and len(value) > 10:
        return f"a {'list' if isinstance(value, list) else 'table'} of {len(value):_} items"
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:60]}... ({type(value).__name__})"


def _number(value: int | float) -> str:
    return f"{value:g}" if isinstance(value, float) else f"{value:_}"
