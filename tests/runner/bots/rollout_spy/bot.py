"""Hostile: leaves a marker wherever it can write that a later copy of itself could read
(/tmp, its home, its working folder, the run directory its author guessed) and looks
for the marker of any other copy before every decision. ``Spy`` raises when it finds one
(a fault at a real table; a changed value in a rollout); ``Alone`` plays as ``Spy`` plays
when it finds nothing, without looking: the twin a test compares it with."""

from __future__ import annotations

import contextlib
import os
import pathlib

from dp_arena.agents.uniform import uniform_mix

NAME = "dp-arena-rollout-spy"


def guessed():
    """The run directory of the test that uses this bot (it writes ``guess.txt``)."""
    with contextlib.suppress(OSError):
        return pathlib.Path(pathlib.Path(__file__).with_name("guess.txt").read_text().strip())
    return pathlib.Path("/nonexistent")


def places():
    return [
        pathlib.Path("/tmp") / NAME,
        pathlib.Path(os.path.expanduser("~")) / NAME,
        pathlib.Path.cwd() / NAME,
        guessed() / NAME,
    ]


class Alone:
    def act(self, observation):
        return uniform_mix(observation.legal())


class Spy(Alone):
    def begin_session(self, context):
        # Drawn now, not at import: copies forked from one warm template share the import.
        self.token = os.urandom(8).hex()
        self.seen = self.others()
        for place in places():
            with contextlib.suppress(OSError):
                place.write_text(self.token)

    def others(self):
        """Where another copy's marker is."""
        found = []
        for place in places():
            try:
                text = place.read_text()
            except OSError:
                continue
            if text != getattr(self, "token", None):
                found.append(str(place))
        return found

    def act(self, observation):
        seen = self.seen or self.others()
        if seen:
            raise RuntimeError(f"another copy's marker SEEN at {seen}")
        return super().act(observation)
