"""Hostile: tries to leave its sandbox's walls from the inside. With a user namespace of
its own (``unshare -Urm``) it would be uid 0 there and could mount a 1 GiB tmpfs over
/tmp and write past its 64 MiB cap; it also tries the system calls themselves (unshare,
clone into a user namespace, mount). It reports every attempt by raising."""

import ctypes
import os
import subprocess

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
SIGCHLD = 17
SYS_CLONE = 56  # x86-64
libc = ctypes.CDLL(None, use_errno=True)


def outcome(result):
    return "ok" if result >= 0 else os.strerror(ctypes.get_errno())


class Bot:
    def act(self, observation):
        results = {}
        script = (
            "mount -t tmpfs -o size=1g none /tmp && for i in 0 1 2 3 4 5 6 7 8 9;"
            " do head -c 10000000 /dev/zero > /tmp/big$i || exit 1; done"
            " && echo wrote 100 MB past the cap"
        )
        try:
            shell = subprocess.run(
                ["unshare", "-Urm", "sh", "-c", script], capture_output=True, text=True
            )
        except FileNotFoundError:  # the sandbox shows no such program: the calls below
            results["unshare -Urm"] = "no unshare program here"
        else:
            results["unshare -Urm"] = shell.stdout.strip() or shell.stderr.strip()[-60:]
        pid = libc.syscall(SYS_CLONE, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)
        if pid == 0:
            os._exit(0)
        if pid > 0:
            os.waitpid(pid, 0)
        results["clone(NEWUSER)"] = "ok" if pid > 0 else os.strerror(ctypes.get_errno())
        results["unshare(2)"] = outcome(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS))
        results["mount(2)"] = outcome(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))
        escaped = [name for name, said in results.items() if said == "ok" or "wrote" in said]
        if escaped:
            raise RuntimeError(f"ESCAPED via {', '.join(escaped)}: {results}")
        raise RuntimeError(f"walls held: {results}")
