"""Hostile: never finishes loading (sleeps at import)."""

import time

time.sleep(10_000)


class Bot:
    def act(self, observation):
        return "fold"
