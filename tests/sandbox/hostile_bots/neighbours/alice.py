"""Hostile: a bot in a folder of single-file bots (``bots/alice.py`` beside
``bots/bob.py``) that reads its neighbour's source, and reports by raising."""

import pathlib


class Alice:
    def act(self, observation):
        neighbour = pathlib.Path(__file__).with_name("bob.py")
        try:
            source = neighbour.read_text()
        except OSError as error:
            raise RuntimeError(f"read blocked: {type(error).__name__}") from None
        raise RuntimeError(f"read SUCCEEDED: {source[:60]!r}")
