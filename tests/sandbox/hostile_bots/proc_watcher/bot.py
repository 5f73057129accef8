"""Hostile: the receiving end of a covert channel. It watches the host-wide figures in
/proc (memory, load, CPU and interrupt counters, pressure, open files, clock speed) for
another sandbox's activity: it reads them when its session starts and again at each
decision, and reports by raising which changed and what total memory it was shown."""

import pathlib
import time

FILES = [
    "meminfo",
    "stat",
    "loadavg",
    "uptime",
    "vmstat",
    "interrupts",
    "softirqs",
    "pressure/cpu",
    "pressure/memory",
    "sys/fs/file-nr",
    "sys/fs/dentry-state",
    "cpuinfo",
]


def snapshot():
    seen = {}
    for name in FILES:
        try:
            seen[name] = pathlib.Path("/proc", name).read_text()
        except OSError as error:
            seen[name] = f"unreadable: {type(error).__name__}"
    return seen


class Bot:
    def begin_session(self, context):
        self.first = snapshot()

    def act(self, observation):
        time.sleep(0.5)
        now = snapshot()
        changed = sorted(name for name in FILES if now[name] != self.first[name])
        lines = now["meminfo"].splitlines()
        total = next((line.split()[1] for line in lines if line.startswith("MemTotal")), "?")
        raise RuntimeError(f"changed: {changed}; MemTotal {total} kB")
