"""Hostile: opens every channel two processes forked from one template could share (an
abstract Unix socket, a loopback port, a System V shared memory key, a pseudo-terminal,
a file in /tmp, a value in a module the template imported) and looks for its mirrored
copy's; reports what it found by raising."""

import ctypes
import os
import socket
import sys

import dp_arena.engine

TOKEN = os.urandom(8).hex()
PORT = 47474
SHM_KEY = 0x4242
IPC_CREAT, IPC_EXCL = 0o1000, 0o2000
held = []


def _try(seen, what, action):
    try:
        action()
    except OSError as error:
        seen.append(f"{what}: {error.strerror}")


class Bot:
    def begin_session(self, context):
        self.seen = []
        others = (
            [name for name in os.listdir("/dev/pts") if name != "ptmx"]
            if os.path.isdir("/dev/pts")
            else []
        )
        if others:
            self.seen.append(f"pty {others}")
        try:
            held.extend(os.openpty())
        except OSError:
            pass  # no pseudo-terminals here at all (the unshare fallback)
        abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        _try(self.seen, "abstract socket", lambda: abstract.bind("\0dp-arena-channel"))
        held.append(abstract)
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        _try(self.seen, "loopback port", lambda: tcp.bind(("127.0.0.1", PORT)))
        held.append(tcp)
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.shmget(SHM_KEY, 4096, IPC_CREAT | IPC_EXCL | 0o666) < 0:
            self.seen.append(f"shared memory key: {os.strerror(ctypes.get_errno())}")
        if os.path.exists("/tmp/channel"):
            self.seen.append("file in /tmp")
        with open("/tmp/channel", "w") as marker:
            marker.write(TOKEN)
        if getattr(dp_arena.engine, "channel_token", TOKEN) != TOKEN:
            self.seen.append("module attribute")
        dp_arena.engine.channel_token = TOKEN
        sys.modules.setdefault("channel_module_" + TOKEN, dp_arena.engine)
        if any(
            name.startswith("channel_module_") and name != "channel_module_" + TOKEN
            for name in sys.modules
        ):
            self.seen.append("module")

    def act(self, observation):
        raise RuntimeError(f"SEEN {self.seen}" if self.seen else "alone")
