"""Hostile: starts three children that spin the CPU for ever, each under the per-process
CPU limit for a while, and plays on itself (slowly, so they have time)."""

import os
import time


class Bot:
    def begin_session(self, context):
        for _ in range(3):
            if os.fork() == 0:
                while True:
                    pass

    def act(self, observation):
        time.sleep(0.5)
        return "check" if observation.to_call == 0 else "fold"
