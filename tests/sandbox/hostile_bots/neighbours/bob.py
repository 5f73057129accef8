"""Not hostile: the neighbour whose source Alice tries to read."""

BOB_SECRET = "bob-plays-tight-preflop"


class Bob:
    def act(self, observation):
        return "check" if observation.to_call == 0 else "fold"
