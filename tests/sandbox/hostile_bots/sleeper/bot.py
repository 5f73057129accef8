"""Hostile: never answers (sleeps forever in act)."""

import time


class Bot:
    def act(self, observation):
        time.sleep(10_000)
