"""The sandbox's syscall filter: no new namespaces, no mounts, and the other system
calls a careful operator denies, as a classic-BPF seccomp program built here.

Inside the sandbox a bot must not make a user namespace (``unshare -Urm``: uid 0 in its
own namespace, then any mount, a tmpfs past its ``/tmp`` cap), nor any other namespace,
nor mount anything. The filter answers, for x86-64 only (:data:`KNOWN_MACHINES`):

- ``EPERM`` to ``unshare``, ``setns``, the mount family (``mount``, ``umount2``,
  ``pivot_root``, ``chroot``, ``open_tree``, ``move_mount``, ``fs*``, ``mount_setattr``),
  ``clone`` with any namespace flag, tracing other processes (``ptrace``,
  ``process_vm_*``, ``kcmp``, ``pidfd_getfd``, ``perf_event_open``), the kernel keyring,
  ``bpf``, ``userfaultfd``, ``fanotify_init``, file handles (``open_by_handle_at``), and
  administration (modules, ``kexec``, ``reboot``, swap, clocks, quotas, host names,
  ``syslog``, I/O ports, ``acct``);
- ``ENOSYS`` to ``clone3`` (its flags are out of a filter's reach: C libraries then fall
  back to ``clone``, which is checked) and ``io_uring_*`` (whose operations would bypass
  the filter);
- death to a system call of another ABI (32-bit ``int 0x80``, x32), which the numbers
  above would not cover.

And it closes what mirrored copies of a bot could use to talk through state the whole
machine shares, the page cache and file locks of files they can both read
(``docs/sandbox.md``, "Mirrored copies cannot talk"):

- advice that drops or pages out file pages is taken and ignored (the call answers 0
  and does nothing): ``fadvise64`` (``POSIX_FADV_DONTNEED`` evicts pages of a file read
  only), ``madvise`` with ``MADV_COLD``, ``MADV_PAGEOUT``, the same-page merging and huge
  page advice, ``MADV_COLLAPSE``; ``EPERM`` to ``process_madvise``, ``prctl`` turning on
  same-page merging, ``remap_file_pages`` and the NUMA page movers (``move_pages`` tells
  where each page is, and so whether it is there);
- what probes the page cache: ``EPERM`` to ``mincore`` and ``cachestat``; ``EAGAIN`` to
  ``preadv2``/``pwritev2`` with ``RWF_NOWAIT`` (its ``EAGAIN`` is the probe: now every
  page reads as absent, and a caller falls back to a plain read as it must anyway);
- file locks, which any process that can read a file sees: taking one (``flock``,
  ``fcntl`` ``F_SETLK``, ``F_SETLKW``, ``F_OFD_SETLK``, ``F_OFD_SETLKW``) answers 0 and
  takes nothing, asking about one (``F_GETLK``, ``F_OFD_GETLK``) and leases and
  directory notices (``F_SETLEASE``, ``F_GETLEASE``, ``F_NOTIFY``) answer ``EPERM``;
  so do ``inotify_init``/``inotify_init1`` (a watch sees every other process read a
  file).

``sysinfo`` stays allowed although it reports the host's load, free memory and process
count (the figures masked in ``/proc``): refused, the C library's
``sysconf(_SC_PHYS_PAGES)`` returns garbage and runtimes that size their heap by it (the
JVM) break; and what it tells is no more than the timing channel every sandbox on a
shared machine keeps.

bubblewrap loads :func:`program` itself (``--seccomp FD``). Elsewhere this file is the
launcher, run with the standard library only (``python -I -S seccomp.py HEX ARGV...``):
it installs the program given in hex with ``prctl`` and execs ``ARGV``, or exits 126
without running it.
"""

from __future__ import annotations

import functools
import os
import platform
import struct
import sys

__all__ = ["KNOWN_MACHINES", "program"]

# x86-64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl).
X86_64 = {
    "ptrace": 101,
    "syslog": 103,
    "uselib": 134,
    "vhangup": 153,
    "pivot_root": 155,
    "_sysctl": 156,
    "adjtimex": 159,
    "chroot": 161,
    "acct": 163,
    "settimeofday": 164,
    "mount": 165,
    "umount2": 166,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "sethostname": 170,
    "setdomainname": 171,
    "iopl": 172,
    "ioperm": 173,
    "init_module": 175,
    "delete_module": 176,
    "quotactl": 179,
    "nfsservctl": 180,
    "lookup_dcookie": 212,
    "clock_settime": 227,
    "kexec_load": 246,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "unshare": 272,
    "perf_event_open": 298,
    "fanotify_init": 300,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "clock_adjtime": 305,
    "setns": 308,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "finit_module": 313,
    "kexec_file_load": 320,
    "bpf": 321,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "clone3": 435,
    "pidfd_getfd": 438,
    "mount_setattr": 442,
    "quotactl_fd": 443,
    "clone": 56,
    # What could carry bits between sandboxes through the page cache and file locks.
    "mincore": 27,
    "madvise": 28,
    "fcntl": 72,
    "flock": 73,
    "prctl": 157,
    "remap_file_pages": 216,
    "fadvise64": 221,
    "inotify_init": 253,
    "migrate_pages": 256,
    "move_pages": 279,
    "inotify_init1": 294,
    "preadv2": 327,
    "pwritev2": 328,
    "process_madvise": 440,
    "cachestat": 451,
}
ABSENT = ("clone3", "io_uring_setup", "io_uring_enter", "io_uring_register")
# Answered 0 without being made: advice the kernel may ignore anyway, locks no one else sees.
IGNORED = ("fadvise64", "flock")
# Allowed or not by an argument: the argument's offset in struct seccomp_data, and what
# each of its values (or, for a flag, each bit set) is answered instead of the call.
MADV_DROPPING = (12, 13, 14, 20, 21, 25)  # (UN)MERGEABLE, HUGEPAGE, COLD, PAGEOUT, COLLAPSE
F_LOCKS_TAKEN = (6, 7, 37, 38)  # F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW
F_LOCKS_ASKED = (5, 36, 1024, 1025, 1026)  # F_GETLK, F_OFD_GETLK, leases, F_NOTIFY
PR_SET_MEMORY_MERGE = 67
RWF_NOWAIT = 0x8
CHECKED = ("clone", "madvise", "fcntl", "preadv2", "pwritev2", "prctl")
DENIED = tuple(name for name in X86_64 if name not in ABSENT + CHECKED + IGNORED)

# clone(2) flags that make a namespace: NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID,
# NEWNET (CLONE_NEWTIME shares its bit with the exit signal in clone(2): unshare only).
NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000
NAMESPACE_FLAGS |= 0x20000000 | 0x40000000
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
KNOWN_MACHINES = {"x86_64": (AUDIT_ARCH_X86_64, X86_64), "amd64": (AUDIT_ARCH_X86_64, X86_64)}

# Classic BPF: load a word of struct seccomp_data, compare, return.
LOAD = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
RET = 0x06  # BPF_RET | BPF_K
NR, ARCH = 0, 4  # offsets in struct seccomp_data
ARG0, ARG1, ARG2, ARG5 = 16, 24, 32, 56  # the arguments' low words (little-endian)
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
EPERM, EAGAIN, ENOSYS = 1, 11, 38


def _assemble(code: list[tuple[int, str | int, str | int, int] | str]) -> bytes:
    """Instructions ``(code, jump if true, jump if false, k)`` with jumps given as label
    names (``0`` for the next instruction), and labels as plain strings."""
    labels: dict[str, int] = {}
    instructions: list[tuple[int, str | int, str | int, int]] = []
    for item in code:
        if isinstance(item, str):
            labels[item] = len(instructions)
        else:
            instructions.append(item)

    def offset(target: str | int, index: int) -> int:
        if isinstance(target, int):
            return target
        distance = labels[target] - index - 1
        if not 0 <= distance <= 255:
            raise ValueError(f"jump to {target} out of reach")
        return distance

    return b"".join(
        struct.pack("<HBBI", op, offset(true, index), offset(false, index), k)
        for index, (op, true, false, k) in enumerate(instructions)
    )


def program(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (default: this one's), or ``None`` for an
    architecture whose system call numbers the filter does not know."""
    return _program((machine or platform.machine()).lower())


@functools.cache
def _program(machine: str) -> bytes | None:
    known = KNOWN_MACHINES.get(machine)
    if known is None:
        return None
    audit_arch, numbers = known
    code: list[tuple[int, str | int, str | int, int] | str] = [
        (LOAD, 0, 0, ARCH),
        (JEQ, 0, "kill", audit_arch),
        (LOAD, 0, 0, NR),
        (JSET, "kill", 0, X32_SYSCALL_BIT),
    ]
    code += [(JEQ, name, 0, numbers[name]) for name in CHECKED]
    code += [(JEQ, "deny", 0, numbers[name]) for name in DENIED]
    code += [(JEQ, "absent", 0, numbers[name]) for name in ABSENT]
    code += [(JEQ, "ignore", 0, numbers[name]) for name in IGNORED]
    code += [(RET, 0, 0, RET_ALLOW)]
    code += _argument_checks("clone", ARG0, flags={NAMESPACE_FLAGS: "deny"})
    code += _argument_checks("madvise", ARG2, values=dict.fromkeys(MADV_DROPPING, "ignore"))
    code += _argument_checks(
        "fcntl",
        ARG1,
        values={**dict.fromkeys(F_LOCKS_TAKEN, "ignore"), **dict.fromkeys(F_LOCKS_ASKED, "deny")},
    )
    for name in ("preadv2", "pwritev2"):
        code += _argument_checks(name, ARG5, flags={RWF_NOWAIT: "again"})
    code += _argument_checks("prctl", ARG0, values={PR_SET_MEMORY_MERGE: "deny"})
    code += [
        "deny",
        (RET, 0, 0, RET_ERRNO | EPERM),
        "absent",
        (RET, 0, 0, RET_ERRNO | ENOSYS),
        "ignore",
        (RET, 0, 0, RET_ERRNO | 0),
        "again",
        (RET, 0, 0, RET_ERRNO | EAGAIN),
        "kill",
        (RET, 0, 0, RET_KILL_PROCESS),
    ]
    return _assemble(code)


def _argument_checks(
    label: str,
    offset: int,
    *,
    values: dict[int, str] | None = None,
    flags: dict[int, str] | None = None,
) -> list[tuple[int, str | int, str | int, int] | str]:
    """The instructions at ``label``: load the argument at ``offset``, answer each of
    ``values`` (or each bit of ``flags`` set) as its label says, allow anything else."""
    code: list[tuple[int, str | int, str | int, int] | str] = [label, (LOAD, 0, 0, offset)]
    code += [(JEQ, answer, 0, value) for value, answer in (values or {}).items()]
    code += [(JSET, answer, 0, bits) for bits, answer in (flags or {}).items()]
    return [*code, (RET, 0, 0, RET_ALLOW)]


def install(filter_program: bytes) -> None:
    """Install the filter on this process (and all it will exec and fork); OSError if
    the kernel refuses."""
    Prepared(filter_program).install()


class Prepared:
    """A filter program made ready to install: its ``prctl`` arguments built once, so
    that a template installs it in each seat it forks with two system calls and little
    else (each object a seat's process builds costs it copied pages)."""

    def __init__(self, filter_program: bytes) -> None:
        import ctypes

        class SockFprog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

        self._libc = ctypes.CDLL(None, use_errno=True)
        self._errno = ctypes.get_errno
        self._program = SockFprog(len(filter_program) // 8, filter_program)
        self._pointer = ctypes.byref(self._program)

    def install(self) -> None:
        """Install it on this process (no_new_privs first); OSError if refused."""
        pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
        if self._libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
            raise OSError(self._errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if self._libc.prctl(pr_set_seccomp, seccomp_mode_filter, self._pointer, 0, 0) != 0:
            raise OSError(self._errno(), "prctl(PR_SET_SECCOMP) failed")


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        sys.stderr.write("usage: seccomp.py HEX-PROGRAM COMMAND [ARG...]\n")
        return 126
    try:
        install(bytes.fromhex(argv[0]))
    except (OSError, ValueError) as error:
        sys.stderr.write(f"dp-arena: cannot install the syscall filter: {error}\n")
        return 126
    try:
        os.execvp(argv[1], argv[1:])
    except OSError as error:
        sys.stderr.write(f"dp-arena: cannot run {argv[1]}: {error.strerror}\n")
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
