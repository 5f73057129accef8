"""Every exception dp-arena raises, in one hierarchy.

::

    DPArenaError
    ├── ConfigError            a config value is wrong; ``.field`` names it
    ├── IllegalActionError     an action the rules refuse; ``.reason`` is machine-readable
    ├── HandHistoryError       a PHH file cannot be read or replayed; names file and action
    ├── AgentError             an agent spec cannot be resolved or loaded
    ├── SubmissionError        a submitted bot is refused; ``.reason`` says why
    ├── RunError               a run directory cannot be created, resumed or read
    └── LedgerError            a money movement the credit ledger refuses (nothing changed)

A bot's misbehaviour during play is *not* an exception: it is a fault, recorded as
data in the results (see :mod:`dp_arena.results`).
"""

from __future__ import annotations

import enum
import pickle

__all__ = [
    "AgentError",
    "ConfigError",
    "DPArenaError",
    "HandHistoryError",
    "IllegalActionError",
    "IllegalReason",
    "LedgerError",
    "RunError",
    "SubmissionError",
]


class DPArenaError(Exception):
    """Base class of every dp-arena error."""


class ConfigError(DPArenaError, ValueError):
    """A configuration value is invalid; ``field`` names it (dotted path) when known, and
    ``absent_players`` the entrants whose bots are all that is wrong with them (their
    files, classes or programs are not there): an event can seat them as absent."""

    def __init__(
        self, message: str, *, field: str | None = None, absent_players: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message)
        self.field = field
        self.absent_players = absent_players


class IllegalReason(enum.StrEnum):
    """Why the engine refused an action (stable strings, safe to match on)."""

    HAND_COMPLETE = "hand_complete"
    UNKNOWN_ACTION = "unknown_action"
    BAD_AMOUNT = "bad_amount"
    NOTHING_TO_FOLD = "nothing_to_fold"
    CHECK_FACING_BET = "check_facing_bet"
    NOTHING_TO_CALL = "nothing_to_call"
    RAISE_NOT_ALLOWED = "raise_not_allowed"
    RAISE_BELOW_MIN = "raise_below_min"
    RAISE_ABOVE_MAX = "raise_above_max"


class IllegalActionError(DPArenaError, ValueError):
    """The rules refuse this action; the hand state is unchanged.

    It crosses process boundaries whole: it pickles with its reason, message and action
    (an environment stepped in a worker process, as Gymnasium's ``AsyncVectorEnv`` and
    Stable-Baselines3's ``SubprocVecEnv`` step them), and ``IllegalActionError(error)``
    is a copy of ``error``, as ``AsyncVectorEnv`` re-raises a worker's error with
    ``type(error)(error)``.

    >>> import pickle
    >>> error = IllegalActionError(IllegalReason.NOTHING_TO_FOLD, "action 0 is masked", action=0)
    >>> copy = pickle.loads(pickle.dumps(error))
    >>> copy.reason is error.reason, str(copy), copy.action
    (True, 'action 0 is masked', 0)
    >>> str(IllegalActionError(copy))
    'action 0 is masked'
    """

    def __init__(
        self,
        reason: IllegalReason | IllegalActionError,
        message: str | None = None,
        *,
        action: object = None,
    ) -> None:
        if isinstance(reason, IllegalActionError):
            original = reason
            reason, message, action = original.reason, str(original), original.action
        if message is None:
            raise TypeError("IllegalActionError needs a reason and a message")
        super().__init__(message)
        self.reason: IllegalReason = reason
        self.action: object = action

    def __reduce__(self) -> tuple[object, ...]:
        action = self.action
        try:
            pickle.dumps(action)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
            # an action object that cannot travel is named instead
            action = repr(action)
        return (type(self), (self.reason, str(self)), {"action": action})


class HandHistoryError(DPArenaError, ValueError):
    """A hand history cannot be parsed or replayed."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        action_index: int | None = None,
        action_text: str | None = None,
    ) -> None:
        where = file or "<hand history>"
        if action_index is not None:
            text = action_text or ""
            shown = repr(text) if len(text) <= 80 else f"{text[:60]!r}... ({len(text)} characters)"
            where += f": action {action_index} {shown}"
        super().__init__(f"{where}: {message}")
        self.file = file
        self.action_index = action_index
        self.action_text = action_text


class AgentError(DPArenaError):
    """An agent spec cannot be resolved, or the agent cannot be loaded."""


class SubmissionError(DPArenaError):
    """A submitted bot is refused; ``reason`` is a short machine-readable code."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class RunError(DPArenaError):
    """A run directory cannot be created, resumed or read."""


class LedgerError(DPArenaError):
    """The credit ledger refuses a money movement (an overdraft, a set settled twice, a
    settlement that does not add up); the ledger is left unchanged."""
