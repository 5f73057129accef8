"""Hostile: spins the CPU forever in act."""


class Bot:
    def act(self, observation):
        while True:
            pass
