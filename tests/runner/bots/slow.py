"""A bot that calls after sleeping ``SLOW_BOT_SECONDS`` (default 0.05) each decision: a
run it plays in lasts long enough to be caught while it runs. Set the variable to 0 to
finish the same run quickly (the file, and so the bot's content hash, stay the same)."""

from __future__ import annotations

import os
import time

from dp_arena.agents import Observation
from dp_arena.engine import Action


class Slow:
    def act(self, observation: Observation) -> Action:
        time.sleep(float(os.environ.get("SLOW_BOT_SECONDS", "0.05")))
        return Action.call() if observation.to_call else Action.check()
