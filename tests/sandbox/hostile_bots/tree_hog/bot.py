"""Hostile: forks three children that each touch 300 MiB and hold it for a while, so its
process tree uses 900 MiB while every process stays far under a 512 MiB per-process
limit. It reports what its children managed by raising."""

import os
import time

CHILD_MIB = 300


def hold():
    block = bytearray(CHILD_MIB * 1024 * 1024)
    for index in range(0, len(block), 4096):
        block[index] = 1
    time.sleep(3)
    os._exit(0)


class Bot:
    def act(self, observation):
        children = []
        for _ in range(3):
            pid = os.fork()
            if pid == 0:
                hold()
            children.append(pid)
        statuses = [os.waitpid(pid, 0)[1] for pid in children]
        raise RuntimeError(f"tree held {3 * CHILD_MIB} MiB; children's statuses {statuses}")
