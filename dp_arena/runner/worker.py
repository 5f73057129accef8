"""What a worker process does with a batch of table units: play them, answer plain data.

:func:`run_batch` is the body of the Ray task (it lives in the installed package so
every node of a cluster imports the same function by name). It reads each unit from
plain JSON data, seats its bots itself, plays the unit with
:func:`~dp_arena.tournament.units.run_unit`, and returns the results as JSON data with
a little about the worker: its code version (the driver refuses results from a
different dp-arena), host, process id and peak memory.
"""

from __future__ import annotations

import os
import resource
import socket
from collections.abc import Sequence
from typing import Any

from dp_arena.results import to_json
from dp_arena.runner.fingerprint import code_version
from dp_arena.tournament.units import TableUnit, run_unit

__all__ = ["run_batch"]


def run_batch(units: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Play ``units`` (each as :meth:`TableUnit.to_json` data) in order; their results as
    JSON data, and the worker's facts."""
    results = [to_json(run_unit(TableUnit.from_json(unit))) for unit in units]
    return {
        "results": results,
        "code_version": code_version(),
        "host": socket.gethostname(),
        "pid": os.getpid(),
        # Linux reports kibibytes.
        "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
