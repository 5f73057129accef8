"""Hostile: a bot file the dealer cannot parse with Python's recursive parser. The tests
append one expression of thousands of terms (``LEVELS = 1+1+1+...``; 200,000 in the
attack as measured) to a copy of this file, so that the repository keeps a readable one.
Loaded anyway (by a parser that copes), it would call or check."""


class Bot:
    def act(self, observation):
        return "call" if observation.to_call else "check"
