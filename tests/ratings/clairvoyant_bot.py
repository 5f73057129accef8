"""An entrant for the tests' events that knows every card: it reads the decks from the
event's public seed (:data:`SEED`), as a bot with a channel between its mirrored copies
would learn them (:mod:`tests.ratings.cheaters`)."""

from __future__ import annotations

from tests.ratings.cheaters import Clairvoyant

SEED = 7


class AllKnowing(Clairvoyant):
    def __init__(self) -> None:
        super().__init__(SEED, "all")
