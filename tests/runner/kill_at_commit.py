"""Run ``dp-arena ARGS`` and SIGKILL the process at the commit of the store's K-th unit:
``python kill_at_commit.py before K ARGS...`` dies inside the transaction, after the
unit's INSERT and before its COMMIT; ``after`` dies right after the COMMIT, before the
event hears of the unit (no history, no progress, nothing else written)."""

from __future__ import annotations

import os
import signal
import sys

from dp_arena.cli import main
from dp_arena.rundir import database, store


def _install(when: str, at_unit: int) -> None:
    original_put = store.RunStore.put
    original_exit = database._Transaction.__exit__
    state = {"puts": 0, "in_put": False}

    def put(self, unit_id, unit, result, encoded=None):  # type: ignore[no-untyped-def]
        state["puts"] += 1
        state["in_put"] = True
        try:
            inserted = original_put(self, unit_id, unit, result, encoded)
        finally:
            state["in_put"] = False
        if when == "after" and state["puts"] == at_unit:
            os.kill(os.getpid(), signal.SIGKILL)
        return inserted

    def exit_transaction(self, exc_type, *rest):  # type: ignore[no-untyped-def]
        if when == "before" and state["in_put"] and state["puts"] == at_unit and exc_type is None:
            os.kill(os.getpid(), signal.SIGKILL)
        return original_exit(self, exc_type, *rest)

    store.RunStore.put = put  # type: ignore[method-assign]
    database._Transaction.__exit__ = exit_transaction  # type: ignore[method-assign]


if __name__ == "__main__":
    _install(sys.argv[1], int(sys.argv[2]))
    sys.exit(main(sys.argv[3:]))
