"""Hostile: the sending end of a covert channel. When its session starts it leaves a
child that allocates and touches 200 MiB and spins the CPU for a few seconds, moving the
host's memory and load figures; it plays by checking or folding."""

import os
import time


def work():
    block = bytearray(200 * 1024 * 1024)
    for index in range(0, len(block), 4096):
        block[index] = 1
    until = time.monotonic() + 4
    while time.monotonic() < until:
        pass
    os._exit(0)


class Bot:
    def begin_session(self, context):
        if os.fork() == 0:
            work()

    def act(self, observation):
        return "check" if observation.to_call == 0 else "fold"
