"""Hostile: tries to read another bot's file, whose path is in target.txt beside this
file (the test writes it), and reports by raising."""

import pathlib


class Bot:
    def act(self, observation):
        target = (pathlib.Path(__file__).parent / "target.txt").read_text().strip()
        try:
            secret = pathlib.Path(target).read_text()
        except OSError as error:
            raise RuntimeError(f"read blocked: {type(error).__name__}") from None
        raise RuntimeError(f"read SUCCEEDED: {secret[:40]}")
