"""The ``bubblewrap`` mode, the best: ``bwrap`` gives the bot new network, PID, IPC, UTS
and mount namespaces: no network at all (not even the host's loopback), a root
filesystem holding only its runtime view (:mod:`~dp_arena.sandbox.confinement.runtime`:
``/etc``, the C library, its language's files), read-only, a private copy of its own
files (read-only) and a private ``/tmp``; ``--die-with-parent`` and the PID namespace
take every process of the bot down with it. Bubblewrap loads the syscall filter itself,
from fd 3."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from dp_arena.sandbox.confinement.backends.base import (
    Enclosure,
    NamespaceBackend,
    Root,
    binds,
    is_root,
)
from dp_arena.sandbox.confinement.command import SECCOMP_FD, SandboxCommand, minimal_env
from dp_arena.sandbox.confinement.mounts import host_file, proc_masks

__all__ = ["TEMPLATE_CAPABILITIES", "BubblewrapBackend"]

# What a template needs beyond the bot's own sandbox to make seats (see sandbox.bot.zygote).
TEMPLATE_CAPABILITIES = (
    "CAP_SYS_ADMIN",
    "CAP_NET_ADMIN",
    "CAP_SETUID",
    "CAP_SETGID",
    "CAP_SETPCAP",
)


class BubblewrapBackend(NamespaceBackend):
    """New namespaces and a read-only root made by ``bwrap``."""

    mode: ClassVar[str] = "bubblewrap"
    tools: ClassVar[tuple[str, ...]] = ("bwrap",)
    loads_filter: ClassVar[bool] = True

    def _enter(self, inner: list[str], enclosure: Enclosure, root: Root) -> SandboxCommand:
        """``inner`` under ``bwrap``: new namespaces, and a root holding the runtime view
        read-only, a fresh ``/proc`` (its host-wide figures masked), ``/dev`` and
        ``/tmp``, and the bot's own files read-only; bubblewrap loads the filter."""
        limits, uid, program = enclosure.limits, enclosure.uid, enclosure.filter_program
        outer = [
            "bwrap",
            "--die-with-parent",
            "--new-session",
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--hostname",
            "bot",
        ]
        if not is_root():
            outer.append("--unshare-user")  # unprivileged bwrap needs a user namespace
        outer += ["--proc", "/proc"]
        for source, target in proc_masks(limits.memory_bytes):
            outer += ["--ro-bind", source, target]
        outer += [
            "--dev",
            "/dev",
            "--size",
            str(limits.tmp_bytes),
            "--perms",
            "1777",
            "--tmpfs",
            "/tmp",
        ]
        made: set[str] = {"/", "/tmp", "/proc", "/dev"}

        def parents(path: str) -> None:
            for ancestor in reversed(Path(path).parents):
                if str(ancestor) not in made:
                    made.add(str(ancestor))
                    outer.extend(["--perms", "0755", "--dir", str(ancestor)])

        for source, target in binds(root.view, root.own):
            parents(target)
            outer += ["--ro-bind", source, target]
            made.add(target)
        for hidden in root.view.hidden:
            outer += ["--perms", "0755", "--tmpfs", hidden, "--remount-ro", hidden]
        for path, target in root.view.links:  # last: nothing is ever made through a link
            parents(path)
            outer += ["--symlink", target, path]
        outer += ["--chdir", str(enclosure.bot_dir)]
        if enclosure.template:
            for capability in TEMPLATE_CAPABILITIES:
                outer += ["--cap-add", capability]
        elif uid is not None:
            outer += [
                "--cap-add",
                "CAP_SETUID",
                "--cap-add",
                "CAP_SETGID",
                "--cap-add",
                "CAP_SETPCAP",
            ]
        seccomp_file = None
        if program is not None:
            outer += ["--seccomp", str(SECCOMP_FD)]
            seccomp_file = host_file("seccomp.bpf", program)
        return SandboxCommand(
            (*outer, "--", *inner), minimal_env(), "/", uid, seccomp_file=seccomp_file
        )
