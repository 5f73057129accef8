"""What confinement hands the dealer: the command that starts a bot inside its sandbox,
the plan of a warm template its seats may be forked from, and the argv that launches
the command (into the bot's cgroups, with the syscall filter open for bubblewrap)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from dp_arena.sandbox.confinement.runtime import SANDBOX_PATH, RuntimeView

__all__ = ["SECCOMP_FD", "SandboxCommand", "TemplatePlan", "launcher_argv", "minimal_env"]

# The fd on which bubblewrap reads the syscall filter (the launcher opens it there).
SECCOMP_FD = 3


@dataclass(frozen=True, slots=True)
class SandboxCommand:
    """The argv that starts a bot inside the sandbox, its environment, the uid it runs as
    (``None``: the dealer's own), a scratch directory to remove after it ends, and the
    syscall filter file bubblewrap reads on fd 3 (see :mod:`dp_arena.sandbox.dealer.spawn`)."""

    argv: tuple[str, ...]
    env: dict[str, str]
    cwd: str
    uid: int | None
    scratch: str | None = None
    seccomp_file: str | None = None
    template: TemplatePlan | None = None


@dataclass(frozen=True, slots=True)
class TemplatePlan:
    """What a warm template of a Python bot's sandbox is made of (its key: seats whose
    plans are equal can be forked from one template): the mode, the runner's arguments,
    the bot's folder, own files and runtime, the limits that shape the sandbox itself."""

    mode: str
    runner_args: tuple[str, ...]
    bot_dir: Path
    own: Path
    runtime: RuntimeView
    memory_bytes: int
    filter_program: bytes | None


def minimal_env() -> dict[str, str]:
    """The whole environment of a bot: nothing of the dealer's leaks in."""
    return {
        "PATH": SANDBOX_PATH,
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        # Thread pools sized to the machine would blow the process and memory limits.
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }


def launcher_argv(command: SandboxCommand, procs_files: list[str]) -> list[str]:
    """``command.argv``, preceded when needed by the shell that joins the bot's cgroups
    and opens the syscall filter for bubblewrap."""
    steps = [f"echo $$ > {shlex.quote(path)}" for path in procs_files]
    opens = ""
    if command.seccomp_file is not None:
        opens = f" {SECCOMP_FD}< {shlex.quote(command.seccomp_file)}"
    if not steps and not opens:
        return list(command.argv)
    script = " && ".join([*steps, f'exec "$@"{opens}'])
    return ["/bin/sh", "-c", script, "dp-arena-launch", *command.argv]
