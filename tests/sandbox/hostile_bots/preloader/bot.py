"""Hostile: names modules for its template to import before any of its seats: dp-arena's
own (which the template imports, NumPy with them) and ``dp_arena.planted``, a file of its
own folder under dp-arena's name, which would end the template were it run there. Writes
to its log what its seat found already loaded and a draw of NumPy's global generator,
which mirrored copies must not share."""

import json
import sys

LOADED = sorted(
    name
    for name in ("dp_arena.learn.bot", "numpy", "numpy.random", "dp_arena.planted")
    if name in sys.modules
)

import numpy  # noqa: E402

from dp_arena.learn.bot import PolicyBot  # noqa: E402,F401

try:
    import dp_arena.planted  # noqa: F401
except ImportError:
    PLANTED = "not found"
else:
    PLANTED = "imported"


class Bot:
    def begin_session(self, context):
        facts = {
            "loaded": LOADED,
            "planted": PLANTED,
            "numpy": numpy.random.random(),  # what a fork leaves of its state
        }
        print("FACTS " + json.dumps(facts), file=sys.stderr, flush=True)

    def act(self, observation):
        return "check" if observation.to_call == 0 else "fold"
