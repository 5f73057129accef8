"""``infos[agent]`` for the player to act: ``{"observation": Observation}``, with the
typed observation built only when someone reads it.

Most learners never look at it, and building it on every step would cost the
environment a sixth of its speed. The observation is of the step it was given for: once
that step is played it can no longer be built, and reading it then is an error that
says so (read it before calling ``step()``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from dp_arena.agents.observation import Observation

__all__ = ["ObservationInfo"]

_KEY = "observation"


class ObservationInfo(dict[str, Any]):
    """A dict holding one key, ``"observation"``, whose value is built on first access."""

    __slots__ = ("_build", "_expired")

    def __init__(self, build: Callable[[], Observation]) -> None:
        super().__init__()
        self._build: Callable[[], Observation] | None = build
        self._expired = False

    def expire(self) -> None:
        """The step is being played: an observation not built by now never will be."""
        if self._build is not None:
            self._expired = True
            self._build = None

    def _fill(self) -> None:
        if self._build is not None:
            super().__setitem__(_KEY, self._build())
            self._build = None
        elif self._expired:
            raise KeyError(
                "this info's observation was never read and its step has been played;"
                " read infos[agent]['observation'] before calling step()"
            )

    def __getitem__(self, key: str) -> Any:
        self._fill()
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self._fill()
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self._fill()
        return super().__contains__(key)

    def __iter__(self) -> Iterator[str]:
        self._fill()
        return super().__iter__()

    def __len__(self) -> int:
        self._fill()
        return super().__len__()

    def keys(self) -> Any:
        self._fill()
        return super().keys()

    def values(self) -> Any:
        self._fill()
        return super().values()

    def items(self) -> Any:
        self._fill()
        return super().items()

    def copy(self) -> dict[str, Any]:
        self._fill()
        return dict(super().items())

    def __eq__(self, other: object) -> bool:
        self._fill()
        return super().__eq__(other)

    __hash__ = None

    def __repr__(self) -> str:
        if self._build is not None:
            return "{'observation': <built when read>}"
        return super().__repr__()
