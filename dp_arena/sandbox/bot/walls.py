"""The walls a seat forked from a warm template raises around itself before its bot's
code runs (:mod:`~dp_arena.sandbox.bot.zygote` calls these in the seat's init and in the
bot process): its own /proc, /tmp and /dev/pts, a private copy of the bot's own files,
its loopback, and no capabilities. Plain system calls through ctypes: a seat has no
``mount`` or ``setpriv`` programs to run, and must not start any."""

from __future__ import annotations

import ctypes
import fcntl
import os
import resource
import socket
import struct

__all__ = [
    "CLONE_NEWPID",
    "LIBC",
    "PR_SET_PDEATHSIG",
    "RLIMITS",
    "SEAT_NAMESPACES",
    "bind_read_only",
    "check",
    "clear_capabilities",
    "drop_bounding_set",
    "loopback_up",
    "mount",
    "prctl",
    "seat_mounts",
]

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
# Made by each seat's init once it is in the seat's cgroups (its PID namespace, of which
# it is pid 1, is made as the template forks it).
SEAT_NAMESPACES = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_CAP_AMBIENT = 1, 24, 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
O_PATH = 0o10000000
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
# /proc folders bubblewrap makes read-only over a fresh /proc; each seat's /proc gets the same.
PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus")

LIBC = ctypes.CDLL(None, use_errno=True)
RLIMITS = {
    "as": resource.RLIMIT_AS,
    "cpu": resource.RLIMIT_CPU,
    "nofile": resource.RLIMIT_NOFILE,
    "nproc": resource.RLIMIT_NPROC,
    "fsize": resource.RLIMIT_FSIZE,
    "core": resource.RLIMIT_CORE,
}


def check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def mount(source: str | None, target: str, kind: str | None, flags: int, data: str = "") -> None:
    check(
        LIBC.mount(
            source.encode() if source is not None else None,
            target.encode(),
            kind.encode() if kind is not None else None,
            flags,
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def bind_read_only(source: str, target: str) -> None:
    mount(source, target, None, MS_BIND | MS_REC)
    mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def prctl(option: int, argument: int, what: str) -> None:
    check(LIBC.prctl(option, argument, 0, 0, 0), what)


def seat_mounts(
    *,
    masks: list[str],
    under_tmp: list[str],
    under_tmp_links: list[list[str]],
    own: str,
    own_bytes: int,
    tmp_bytes: int,
) -> None:
    """The seat's own /proc (with the stand-ins over the host-wide figures of ``masks``),
    /tmp (showing again what the runtime shows ``under_tmp``) and /dev/pts, in its own
    mount namespace, and a private copy of the bot's ``own`` files (``own_bytes`` of
    them) where they were; nothing of it propagates back."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    # The stand-ins, opened before the fresh /proc covers them (a bind's source must be
    # in this mount namespace: paths opened here are).
    stand_ins = [(os.open(path, O_PATH | os.O_CLOEXEC), path) for path in masks]
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for name in PROC_READ_ONLY:
        path = f"/proc/{name}"
        if os.path.exists(path):
            bind_read_only(path, path)
    for fd, path in stand_ins:
        bind_read_only(f"/proc/self/fd/{fd}", path)
        os.close(fd)
    # What the runtime shows under /tmp, bound again over the seat's fresh /tmp below.
    kept = [(os.open(path, O_PATH | os.O_CLOEXEC), path) for path in under_tmp]
    own_fd = os.open(own, O_PATH | os.O_CLOEXEC)
    # The seat's private copy of the bot's own files, in a file system of its own
    # (counted in the seat's budget), mounted first where /tmp is and covered by it.
    mount(
        "tmpfs",
        "/tmp",
        "tmpfs",
        MS_NOSUID | MS_NODEV,
        f"size={own_bytes + (1 << 20)},mode=0700",
    )
    copy = _copy_own(f"/proc/self/fd/{own_fd}", "/tmp/own")
    os.close(own_fd)
    mount(
        "tmpfs",
        "/tmp",
        "tmpfs",
        MS_NOSUID | MS_NODEV,
        f"size={tmp_bytes},mode=1777",
    )
    for fd, path in kept:
        _mount_point(path, is_dir=os.path.isdir(f"/proc/self/fd/{fd}"))
        bind_read_only(f"/proc/self/fd/{fd}", path)
        os.close(fd)
    for path, target in under_tmp_links:
        _mount_point(os.path.dirname(path), is_dir=True, exist_ok=True)
        os.symlink(target, path)
    if own.startswith("/tmp/") and not os.path.lexists(own):
        _mount_point(own, is_dir=os.path.isdir(f"/proc/self/fd/{copy}"))
    bind_read_only(f"/proc/self/fd/{copy}", own)
    os.close(copy)
    if os.path.ismount("/dev/pts"):
        mount(
            "devpts",
            "/dev/pts",
            "devpts",
            MS_NOSUID | MS_NOEXEC,
            "newinstance,ptmxmode=0666,mode=620",
        )


def _copy_own(source: str, target: str) -> int:
    """Copy the bot's own files (a file or a folder, at ``source``) to ``target``:
    folders 0755, files 0444 (0555 if executable), links as links, nothing else; an
    ``O_PATH`` descriptor of the copy."""
    if os.path.isdir(source):
        os.mkdir(target, 0o755)
        os.chmod(target, 0o755)
        with os.scandir(source) as entries:
            for entry in entries:
                path = os.path.join(target, entry.name)
                if entry.is_symlink():
                    os.symlink(os.readlink(entry.path), path)
                elif entry.is_dir():
                    os.close(_copy_own(entry.path, path))
                elif entry.is_file():
                    _copy_file(entry.path, path)
    else:
        _copy_file(source, target)
    return os.open(target, O_PATH | os.O_CLOEXEC)


def _copy_file(source: str, target: str) -> None:
    with open(source, "rb") as original:
        mode = os.fstat(original.fileno()).st_mode
        with open(target, "xb") as copy:
            while chunk := original.read(1 << 20):
                copy.write(chunk)
    os.chmod(target, 0o555 if mode & 0o111 else 0o444)


def _mount_point(path: str, *, is_dir: bool, exist_ok: bool = False) -> None:
    """An empty folder or file at ``path`` in the seat's /tmp, its missing parents made
    0755 and root's, as bubblewrap makes them."""
    parts = path.strip("/").split("/")
    for depth in range(2, len(parts)):
        folder = "/" + "/".join(parts[:depth])
        if not os.path.isdir(folder):
            os.mkdir(folder)
            os.chmod(folder, 0o755)
    if exist_ok and os.path.isdir(path):
        return
    if is_dir:
        os.mkdir(path)
        os.chmod(path, 0o755)
    else:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o444))


def loopback_up() -> None:
    """The seat's own loopback, up (as bubblewrap leaves it): reaching nothing but itself."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH14s", fcntl.ioctl(probe, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(probe, SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, b""))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


# capset's arguments, built once in the template: version 3 (64-bit sets), all empty.
_NO_CAPABILITIES = (_CapHeader(0x20080522, 0), (_CapData * 2)())
_NO_CAPABILITIES_ARGUMENTS = (ctypes.byref(_NO_CAPABILITIES[0]), _NO_CAPABILITIES[1])


def clear_capabilities() -> None:
    """Empty effective, permitted and inheritable sets."""
    check(LIBC.capset(*_NO_CAPABILITIES_ARGUMENTS), "capset")


def drop_bounding_set(last_cap: int) -> None:
    """Drop every capability up to ``last_cap`` from the bounding set, and the ambient ones."""
    for capability in range(last_cap + 1):
        prctl(PR_CAPBSET_DROP, capability, "PR_CAPBSET_DROP")
    check(LIBC.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "ambient capabilities")
