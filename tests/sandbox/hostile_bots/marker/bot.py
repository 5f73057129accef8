"""Hostile: leaves a marker in /tmp and in its own folder, and looks for the marker of
its mirrored copy; reports what it saw by raising."""

import contextlib
import os
import pathlib

# From the kernel: two seats forked from one template share their pid and addresses.
TOKEN = os.urandom(8).hex()


class Bot:
    def begin_session(self, context):
        pathlib.Path("/tmp/dp-arena-marker").write_text(TOKEN)
        with contextlib.suppress(OSError):  # its own folder is read-only
            (pathlib.Path(__file__).parent / "marker").write_text(TOKEN)

    def act(self, observation):
        seen = []
        for place in (
            pathlib.Path("/tmp/dp-arena-marker"),
            pathlib.Path(__file__).parent / "marker",
        ):
            try:
                text = place.read_text()
            except OSError:
                continue
            if text != TOKEN:
                seen.append(str(place))
        raise RuntimeError(f"other copy's marker SEEN at {seen}" if seen else "alone")
