"""Hostile: tries to forge the exit status its seat reports, and to stop or reach the
seat's init (pid 1 of its PID namespace, which holds the status socket): it signals pid
1 with everything, looks for its file descriptors and memory, and writes a made-up
``{"exit": 0}`` to every socket it holds; then it exits with status 7. What each try
gave is written to its log as one JSON line."""

import json
import os
import signal
import socket
import sys

FORGED = b'{"exit": 0}'


def _try(action):
    try:
        action()
    except OSError as error:
        return type(error).__name__
    return "done"


def _read(path):
    with open(path, "rb") as file:
        return file.read(64)


class Bot:
    def act(self, observation):
        tries = {}
        for number in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGSTOP, 0):
            tries[f"signal {number}"] = _try(lambda number=number: os.kill(1, number))
        tries["fds of pid 1"] = _try(lambda: os.listdir("/proc/1/fd"))
        tries["memory of pid 1"] = _try(lambda: _read("/proc/1/mem"))
        tries["environ of pid 1"] = _try(lambda: _read("/proc/1/environ"))
        for fd in range(3, 64):  # only its pipes are open: any socket would be a leak
            try:
                sock = socket.socket(fileno=os.dup(fd))
            except OSError:
                continue
            tries[f"fd {fd}"] = _try(lambda sock=sock: sock.send(FORGED))
            sock.close()
        print("FORGER " + json.dumps(tries), file=sys.stderr, flush=True)
        os._exit(7)
