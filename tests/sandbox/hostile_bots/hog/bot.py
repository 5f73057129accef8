"""Hostile: tries to allocate 10 GB at every decision."""


class Bot:
    def act(self, observation):
        block = bytearray(10 * 1024**3)
        return "check" if block else "fold"
