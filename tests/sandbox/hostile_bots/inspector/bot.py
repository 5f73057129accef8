"""Hostile: looks at everything its process holds that a fork from a warm template
could have handed it (file descriptors, capabilities, uid, limits, namespaces, random
state, the template's modules) and writes what it found to its log as one JSON line."""

import json
import os
import random
import resource
import sys

LIMITS = ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_CORE")


def _fds():
    found = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            found[name] = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            pass  # the listing's own
    return found


def _status():
    fields = {}
    with open("/proc/self/status") as status:
        for line in status.read().split("\n"):
            name, _, value = line.partition(":")
            if name.startswith(("Cap", "Uid", "Gid", "Groups", "NoNewPrivs", "Seccomp")):
                fields[name] = value.strip()
    return fields


class Bot:
    def begin_session(self, context):
        facts = {
            "pid": os.getpid(),
            "ppid": os.getppid(),
            "uid": os.getuid(),
            "pids": sorted(int(entry) for entry in os.listdir("/proc") if entry.isdigit()),
            "fds": _fds(),
            "status": _status(),
            "limits": {name: list(resource.getrlimit(getattr(resource, name))) for name in LIMITS},
            "cgroup": open("/proc/self/cgroup").read().split("\n"),
            "tmp": sorted(os.listdir("/tmp")),
            "pts": sorted(os.listdir("/dev/pts")) if os.path.isdir("/dev/pts") else [],
            "loadavg": open("/proc/loadavg").read(),
            "random": random.random(),  # noqa: TID251 - what a fork leaves of its state
            "modules": sorted(name for name in sys.modules if name.startswith("dp_arena")),
            "namespaces": {
                name: os.readlink(f"/proc/self/ns/{name}")
                for name in ("mnt", "pid", "net", "ipc", "uts", "cgroup")
            },
            "main": sorted(vars(sys.modules["__main__"])),
        }
        print("FACTS " + json.dumps(facts), file=sys.stderr, flush=True)

    def act(self, observation):
        return "check" if observation.to_call == 0 else "fold"
