"""Hostile: looks at what it can see of the host and of its own files, and writes it to
its log: where its own file lives (device and inode: mirrored copies must each read a
copy of their own), whether it can change it, which host programs and packages it can
find, and how much of the host's /usr it can list."""

import importlib.util
import json
import os
import sys

PROGRAMS = ("/usr/bin/gcc", "/usr/bin/git", "/usr/bin/perl", "/usr/bin/apt", "/usr/sbin/sshd")
PACKAGES = ("numpy", "dp_arena", "json", "sqlalchemy", "ray", "pytest", "gymnasium")


def _writable(path):
    try:
        with open(path, "ab"):
            return True
    except OSError:
        return False


def _count(folder):
    try:
        return sum(len(names) for _, _, names in os.walk(folder))
    except OSError:
        return 0


class Bot:
    def begin_session(self, context):
        own = os.stat(__file__)
        data = os.path.join(os.path.dirname(__file__), "data.bin")
        facts = {
            "own": [own.st_dev, own.st_ino],
            "data": open(data, "rb").read() if os.path.exists(data) else None,
            "own_writable": _writable(__file__),
            "programs": [path for path in PROGRAMS if os.path.exists(path)],
            "packages": [name for name in PACKAGES if importlib.util.find_spec(name)],
            "usr_files": _count("/usr"),
            "base_site_packages": os.listdir(
                os.path.join(
                    sys.base_prefix,
                    "lib",
                    f"python{sys.version_info[0]}.{sys.version_info[1]}",
                    "site-packages",
                )
            )
            if sys.base_prefix != sys.prefix
            else [],
        }
        if isinstance(facts["data"], bytes):
            facts["data"] = facts["data"].decode()
        print("FACTS " + json.dumps(facts), file=sys.stderr, flush=True)

    def act(self, observation):
        return "check" if observation.to_call == 0 else "fold"
