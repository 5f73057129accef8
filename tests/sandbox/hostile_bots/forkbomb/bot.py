"""Hostile: a fork bomb. Every child forks on, forever; the bot reports how many forks
it got and then fails the decision."""

import os
import time


def bomb():
    while True:
        try:
            os.fork()
        except OSError:
            time.sleep(0.05)


class Bot:
    def act(self, observation):
        children = 0
        for _ in range(10_000):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                bomb()
            children += 1
        raise RuntimeError(f"forked {children}")
