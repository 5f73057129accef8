"""The unit of work: table units and their seat assignments, opening an entrant's seat,
running a unit, the executors, and a unit's hand history rebuilt from its result.

Every way of playing goes through it: the event formats make table units that the
runner's executors run, and the duplicate match makes its own
(:func:`dp_arena.match.match_units`), which :func:`dp_arena.match.play_match` and the
server's ladder both run. See :mod:`dp_arena.units.table`.
"""

from __future__ import annotations

# The package's names are those of the unit's module, listed once, there.
from dp_arena.units.table import *  # noqa: F403  (the names table.__all__ lists)
from dp_arena.units.table import __all__ as __all__
