"""Hostile, for a dealer holding more than 1,024 descriptors: plays (calls or checks),
and raises if it holds any descriptor but its stdin, stdout, stderr and the runner's
protocol pipe, i.e. if any of the dealer's reached it."""

import os


def _descriptors() -> list[int]:
    return sorted(int(name) for name in os.listdir("/proc/self/fd") if _open(int(name)))


def _open(descriptor: int) -> bool:
    try:  # the listing's own descriptor is closed by now
        os.fstat(descriptor)
    except OSError:
        return False
    return True


class Bot:
    def begin_session(self, context):
        held = _descriptors()
        if len(held) > 4 or max(held) >= 64:
            raise RuntimeError(f"descriptors of the dealer seen: {held[:20]} ({len(held)})")

    def act(self, observation):
        return "call" if observation.to_call else "check"
