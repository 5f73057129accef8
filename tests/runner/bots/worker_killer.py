"""A bot that kills the process it runs in, once: the first time it is asked to act
anywhere, it creates ``killed.marker`` beside this file (atomically, so exactly one
process wins) and sends itself SIGKILL, in the middle of a table-session. Otherwise it
plays like a calling station. Copy it into a temporary folder before use.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from dp_arena.agents import Observation
from dp_arena.engine import Action

MARKER = Path(__file__).resolve().with_name("killed.marker")


class WorkerKiller:
    def act(self, observation: Observation) -> Action:
        try:
            descriptor = os.open(MARKER, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            pass
        else:
            os.write(descriptor, str(os.getpid()).encode())
            os.close(descriptor)
            os.kill(os.getpid(), signal.SIGKILL)
        return Action.call() if observation.to_call else Action.check()
