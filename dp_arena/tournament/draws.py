"""Seeded draws for an event: seating, section splits, field draws and the last tie-breaker.

Every random choice an event makes comes from a :class:`Draw`, a stream of uniform
integers that is a pure function of the event seed and a label, so the same config
gives the same event on every machine, process and executor. Nothing here uses
``hash()``, the global ``random`` module or the clock.

The stream is SHA-256 in counter mode: block ``k`` is
``sha256("dp-arena/draw/v1:{event_seed}:{label}:{k}")``, read as four little-endian
64-bit words. ``below(n)`` accepts a word ``w`` when ``w < 2**64 - 2**64 % n`` (rejection
keeps the draw unbiased) and returns ``w % n``; ``shuffle`` is Fisher-Yates from the last
position down, like the deck (:mod:`dp_arena.engine.deck`).

>>> players = ["a", "b", "c", "d"]
>>> Draw(7, "seating", 1, 2).shuffle(players) == Draw(7, "seating", 1, 2).shuffle(players)
True
>>> sorted(Draw(7, "x").shuffle(range(10))) == list(range(10))
True
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable
from typing import TypeVar

__all__ = ["DRAW_VERSION", "Draw"]

DRAW_VERSION = 1
_TWO_64 = 1 << 64
T = TypeVar("T")


class Draw:
    """A deterministic stream of uniform draws named by ``(event_seed, *labels)``."""

    __slots__ = ("_block", "_material", "_words")

    def __init__(self, event_seed: int, *labels: object) -> None:
        if not isinstance(event_seed, int) or isinstance(event_seed, bool) or event_seed < 0:
            raise ValueError(f"Draw: event_seed must be a non-negative integer, not {event_seed!r}")
        label = ":".join(str(part) for part in labels)
        self._material = f"dp-arena/draw/v{DRAW_VERSION}:{event_seed}:{label}:"
        self._block = 0
        self._words: list[int] = []

    def _word(self) -> int:
        if not self._words:
            digest = hashlib.sha256(f"{self._material}{self._block}".encode()).digest()
            self._block += 1
            # Reversed so that pop() yields the block's words in order.
            self._words = list(reversed(struct.unpack("<4Q", digest)))
        return self._words.pop()

    def below(self, bound: int) -> int:
        """A uniform integer in ``0..bound-1``."""
        if bound <= 0:
            raise ValueError(f"Draw.below: bound must be positive, not {bound}")
        limit = _TWO_64 - _TWO_64 % bound
        while True:
            word = self._word()
            if word < limit:
                return word % bound

    def shuffle(self, items: Iterable[T]) -> list[T]:
        """A new list: ``items`` in a uniformly drawn order."""
        result = list(items)
        for index in range(len(result) - 1, 0, -1):
            other = self.below(index + 1)
            result[index], result[other] = result[other], result[index]
        return result
