"""What the routes computed of finished matches, kept for the next request: a finished
match never changes, and its page (every deal at every table, replayed through the
engine) and its hand histories cost far more to make than to keep. A small cache of the
most recently asked, shared by the request threads."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["FinishedMatches"]


class FinishedMatches:
    """At most ``size`` values, each made once by its ``make`` and kept by its key
    (which names a finished match); the least recently asked goes first."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()  # outside the lock: two threads may make it once each, no harm
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value
