"""Hostile: raises in every hook and in act."""


class Bot:
    def begin_session(self, context):
        raise RuntimeError("begin_session exploded")

    def act(self, observation):
        raise ValueError("act exploded")
