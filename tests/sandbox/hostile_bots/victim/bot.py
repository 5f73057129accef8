"""Not hostile: the bot whose files the snoop tries to read."""


class Bot:
    def act(self, observation):
        return "check" if observation.to_call == 0 else "fold"
