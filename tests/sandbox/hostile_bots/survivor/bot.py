"""Hostile: tries to outlive its seat. It starts a child and a grandchild that each take
a session of their own, clear their parent-death signal, ignore every signal they can
and block the rest, then sleep; the bot itself does the same, then plays by checking or
folding. Each writes its pid (in the seat's PID namespace) to the bot's log."""

import ctypes
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1


def _harden():
    os.setsid()
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0)
    for number in range(1, signal.NSIG):
        try:
            signal.signal(number, signal.SIG_IGN)
        except (OSError, ValueError, RuntimeError):
            pass
    signal.pthread_sigmask(signal.SIG_BLOCK, set(range(1, signal.NSIG)) - {9, 19})


def _linger():
    _harden()
    while True:
        time.sleep(1)


class Bot:
    def begin_session(self, context):
        if os.fork() == 0:  # the child, and under it the grandchild
            if os.fork() == 0:
                print(f"SURVIVOR grandchild {os.getpid()}", file=sys.stderr, flush=True)
                _linger()
            print(f"SURVIVOR child {os.getpid()}", file=sys.stderr, flush=True)
            _linger()
        for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGPIPE):
            signal.signal(number, signal.SIG_IGN)
        print("SURVIVOR ready", file=sys.stderr, flush=True)

    def act(self, observation):
        return "check" if observation.to_call == 0 else "fold"
