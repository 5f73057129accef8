"""Hostile: starts a child in a session of its own (setsid) that would outlive the bot,
and a double-forked daemon; then plays by checking or folding."""

import os
import subprocess
import sys
import time


class Bot:
    def begin_session(self, context):
        subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(10000)"],
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                while True:
                    time.sleep(1)
            os._exit(0)

    def act(self, observation):
        return "check" if observation.to_call == 0 else "fold"
