"""The smuggler's bot: calls or checks, and says so (by raising) if it finds a deck the
package's ``__init__.py`` leaked from the dealer."""

from smuggler import LEAK


class Bot:
    def act(self, observation):
        if LEAK.exists():
            raise RuntimeError(f"read the dealer's decks: {LEAK.read_text()[:200]}")
        return "call" if observation.to_call else "check"
