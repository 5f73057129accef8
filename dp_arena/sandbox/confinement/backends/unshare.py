"""The ``unshare`` mode, the fallback when ``bwrap`` is missing: ``unshare`` makes the
same namespaces, and a small shell script run as root inside them mounts the same
read-only root (:func:`_unshare_script`) and ``chroot``s into it. A launcher installs the
syscall filter."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from typing import ClassVar

from dp_arena.sandbox.confinement.backends.base import (
    Enclosure,
    NamespaceBackend,
    Root,
    binds,
    is_root,
)
from dp_arena.sandbox.confinement.command import SandboxCommand, minimal_env
from dp_arena.sandbox.confinement.mounts import proc_masks
from dp_arena.sandbox.confinement.runtime import SANDBOX_PATH

__all__ = ["UnshareBackend"]


class UnshareBackend(NamespaceBackend):
    """New namespaces made by ``unshare``, a read-only root made by a shell script."""

    mode: ClassVar[str] = "unshare"
    tools: ClassVar[tuple[str, ...]] = ("unshare",)

    def _enter(self, inner: list[str], enclosure: Enclosure, root: Root) -> SandboxCommand:
        """``inner`` under ``unshare``: the same namespaces, and a shell script that builds
        the same read-only root in the seat's scratch folder and enters it
        (:func:`_unshare_script`)."""
        mount_point = os.path.join(root.scratch, "root")
        os.mkdir(mount_point, 0o755)
        script = _unshare_script(mount_point, root, enclosure, inner)
        outer = ["unshare", "--mount", "--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child"]
        if not is_root():
            outer.append("--map-root-user")
        command = (*outer, "/bin/sh", "-c", script)
        return SandboxCommand(command, minimal_env(), "/", enclosure.uid)


def _unshare_script(root: str, made: Root, enclosure: Enclosure, inner: Sequence[str]) -> str:
    """A shell script, run as root in fresh namespaces, that builds the bot's read-only
    root filesystem ``made`` at ``root`` (the same layout bubblewrap makes) and enters it."""
    view, limits = made.view, enclosure.limits
    quote = shlex.quote
    lines = [
        "set -e",
        "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
        f"R={quote(root)}",
        'mount -t tmpfs -o mode=0755 dp-arena-root "$R"',
        # The network namespace's own loopback, up as bubblewrap leaves it (an ACPC agent
        # talks to its shim over it); it reaches nothing but itself.
        "ip link set lo up 2>/dev/null || true",
    ]

    def bind(source: str, path: str) -> None:
        target = '"$R"' + quote(path)
        kind = "-d" if os.path.isdir(source) else "-f"
        make = (
            f"mkdir -p {target}"
            if kind == "-d"
            else f"mkdir -p $(dirname {target}) && touch {target}"
        )
        lines.append(
            f"{make} && mount --rbind {quote(source)} {target} && mount -o remount,bind,ro {target}"
        )

    lines.append('mkdir -p "$R/proc" && mount -t proc proc "$R/proc"')
    # Host-wide figures masked, in one mount(8) call: a table of read-only binds.
    table = "".join(
        f"{_fstab_path(source)} {_fstab_path(root + target)} none bind,ro 0 0\n"
        for source, target in proc_masks(limits.memory_bytes)
    )
    lines.append(f"cat > \"$R/.masks\" <<'EOF'\n{table}EOF")
    lines.append('mount -a -T "$R/.masks" && rm "$R/.masks"')
    lines.append('mkdir -p "$R/dev"')
    for device in ("null", "zero", "full", "random", "urandom"):
        lines.append(f'touch "$R/dev/{device}" && mount --bind /dev/{device} "$R/dev/{device}"')
    lines.append(
        'mkdir -p "$R/tmp" && mount -t tmpfs'
        f' -o mode=1777,size={limits.tmp_bytes} dp-arena-tmp "$R/tmp"'
    )
    for source, path in binds(view, made.own):
        bind(source, path)
    for hidden in view.hidden:
        lines.append(f'mount -t tmpfs -o ro,mode=0755 dp-arena-hidden "$R"{quote(hidden)}')
    for path, target in view.links:  # last: nothing is ever made through a link
        folder = '"$R"' + quote(os.path.dirname(path))
        lines.append(f'mkdir -p {folder} && ln -s {quote(target)} "$R"{quote(path)}')
    lines.append('chmod 0755 "$R"')
    command = " ".join(quote(part) for part in inner)
    enter = f"cd {quote(str(enclosure.bot_dir))} && PATH={SANDBOX_PATH} exec {command}"
    lines.append(f'exec chroot "$R" /bin/sh -c {quote(enter)}')
    return "\n".join(lines)


def _fstab_path(path: str) -> str:
    """A path as an fstab field (blanks and backslashes octal-escaped)."""
    return "".join(f"\\{ord(char):03o}" if char in " \t\n\\" else char for char in path)
