"""Which isolation the sandbox can use on this machine, and the command line that puts a
bot process inside it.

Three modes, best first (``DP_ARENA_SANDBOX=bubblewrap|unshare|none`` forces one):

``bubblewrap``
    ``bwrap`` gives the bot new network, PID, IPC, UTS and mount namespaces: no network
    at all (not even the host's loopback), a root filesystem holding only its runtime
    view (:mod:`dp_arena.sandbox.runtime`: ``/etc``, the C library, its language's
    files), read-only, a private copy of its own files (read-only) and a private
    ``/tmp``; ``--die-with-parent`` and the PID namespace take every process of the bot
    down with it.
``unshare``
    The fallback when ``bwrap`` is missing: ``unshare`` makes the same namespaces, and a
    small shell script mounts the same read-only root and ``chroot``s into it.
``none``
    Neither works (no namespaces in this container): the bot is an ordinary process
    with resource limits and, as root, its own uid. A warning says the bot has network
    access and sees the host's files.

In every mode the bot also runs under a syscall filter (:mod:`dp_arena.sandbox.seccomp`:
no new namespaces, no mounts, ...) where the machine's architecture is one the filter
knows, and in the first two the host-wide figures of ``/proc`` are masked
(:func:`~dp_arena.sandbox.mounts.proc_masks`).

Run as root (the dealer usually is, in CI and on servers), every mode also drops the
bot to a uid of its own, never 0: root ignores file permissions and ``RLIMIT_NPROC``,
and a uid per bot process makes the process limit per bot and lets :func:`kill_uid`
find every process a bot left behind. The namespaces are deliberately made without a
user namespace when running as root: in one, the bot's uid would map back to root
outside, and the kernel would exempt it from the process limit.
"""

from __future__ import annotations

import contextlib
import functools
import os
import platform
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from dp_arena.records import to_json
from dp_arena.sandbox import seccomp
from dp_arena.sandbox.budget import budget_support
from dp_arena.sandbox.limits import Limits
from dp_arena.sandbox.mounts import (
    SANDBOX_PATH,
    host_file,
    private_copy,
    proc_masks,
    python_runtime,
)
from dp_arena.sandbox.runtime import (
    Residency,
    RuntimeView,
    keep_resident,
    python_view,
    resident,
    system_view,
)
from dp_arena.sandbox.uids import next_uid

__all__ = [
    "Isolation",
    "SandboxCommand",
    "TemplatePlan",
    "detect",
    "exec_command",
    "kill_uid",
    "sandbox_command",
    "seat_start",
    "template_command",
    "template_plan",
    "uid_processes",
]

MODES = ("bubblewrap", "unshare", "none")
# How a Python bot's seat process is made: forked from a warm template of its sandbox,
# or exec'd from nothing (``DP_ARENA_SEATS`` forces one).
SEAT_STARTS = ("fork", "exec")
# What a template needs beyond the bot's own sandbox to make seats (see sandbox.zygote).
TEMPLATE_CAPABILITIES = (
    "CAP_SYS_ADMIN",
    "CAP_NET_ADMIN",
    "CAP_SETUID",
    "CAP_SETGID",
    "CAP_SETPCAP",
)
# The fd on which bubblewrap reads the syscall filter (the launcher opens it there).
SECCOMP_FD = 3


@dataclass(frozen=True, slots=True)
class Isolation:
    """What isolation is active: the mode and, in words, what it guarantees."""

    mode: str
    own_uid: bool  # the bot runs as a uid of its own, not root
    network_namespace: bool  # the bot cannot reach the host's network, loopback included
    pid_namespace: bool  # closing the bot kills every process it started, setsid or not
    private_filesystem: bool  # the bot sees only its folder, the runtime and a private /tmp
    warning: str | None = None
    resource_limits: bool = True  # setrlimit through util-linux prlimit
    budget: str = "watchdog"  # what counts the whole tree: cgroup2, cgroup1 or watchdog
    budget_detail: str = ""
    syscall_filter: bool = False  # no new namespaces or mounts (seccomp)
    filter_detail: str = ""
    proc_masked: bool = False  # host-wide /proc figures replaced by constants
    seats: str = "exec"  # Python bots' seats: forked from a warm template, or exec'd
    residency: str = ""  # how the runtime bots read is kept in memory (namespace modes)

    def describe(self) -> list[str]:
        """Human-readable lines, as ``dp-arena check-agent`` prints them."""
        yes_no = {True: "yes", False: "NO"}
        lines = [
            f"isolation mode: {self.mode}",
            f"  no network (own network namespace): {yes_no[self.network_namespace]}",
            f"  own process namespace (no process outlives the bot): {yes_no[self.pid_namespace]}",
            (
                "  private filesystem (own files read-only, private /tmp):"
                f" {yes_no[self.private_filesystem]}"
            ),
            f"  non-root uid of its own: {yes_no[self.own_uid]}",
            (
                "  resource limits (memory, CPU, open files, processes, file size):"
                f" {yes_no[self.resource_limits]}"
            ),
            (
                "  budgets for the bot's whole process tree (memory, processes, CPU):"
                f" {self.budget_detail or self.budget}"
            ),
            (
                "  syscall filter (no new namespaces, mounts, tracing, kernel keyring, ...):"
                f" {yes_no[self.syscall_filter]}"
                + (f" ({self.filter_detail})" if self.filter_detail else "")
            ),
            (
                "  host-wide /proc figures masked (load, memory, CPU counters):"
                f" {yes_no[self.proc_masked]}"
            ),
            f"  seats of Python bots: {_SEAT_WORDS[self.seats]}",
            (
                "  mirrored copies share no file (a private copy of the bot's files per seat,"
                f" the runtime kept in memory): {self.residency or 'NO'}"
            ),
        ]
        if self.warning:
            lines.append(f"  WARNING: {self.warning}")
        return lines

    def to_json(self) -> dict[str, object]:
        return to_json(self)


_SEAT_WORDS = {
    "fork": (
        "forked from a warm template of the bot's sandbox (each seat still its own"
        " processes, namespaces, /tmp, uid and budget)"
    ),
    "exec": "a fresh sandbox and interpreter started for each seat",
}


@dataclass(frozen=True, slots=True)
class SandboxCommand:
    """The argv that starts a bot inside the sandbox, its environment, the uid it runs as
    (``None``: the dealer's own), a scratch directory to remove after it ends, and the
    syscall filter file bubblewrap reads on fd 3 (see :mod:`dp_arena.sandbox.spawn`)."""

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


def _is_root() -> bool:
    return os.geteuid() == 0


@functools.cache
def detect() -> Isolation:
    """The best isolation that works here, found by starting a trivial sandboxed
    process once per dealer process (cached)."""
    support = budget_support()
    found = replace(_detect_namespaces(), budget=support.kind, budget_detail=support.describe())
    found = _with_filter(found)
    found = replace(found, seats=seat_start(found.mode))
    if found.private_filesystem:
        found = replace(found, residency=hold(python_view()).describe())
    if shutil.which("prlimit") is not None:
        return found
    missing = "prlimit (util-linux) is missing: no memory, CPU, process or file limits"
    warning = f"{found.warning}; {missing}" if found.warning else missing
    return replace(found, resource_limits=False, warning=warning)


def _with_filter(found: Isolation) -> Isolation:
    """``found`` with the syscall filter, if it knows this architecture and a sandboxed
    ``true`` runs under it here; otherwise without, saying why in a warning."""
    machine = platform.machine()
    filter_program = seccomp.program(machine)
    problem: str | None = f"it knows no system call numbers for {machine}"
    if filter_program is not None:
        problem = _probe(found.mode, filter_program)
        if problem is None:
            return replace(found, syscall_filter=True, filter_detail=f"seccomp, {machine}")
    warning = (
        f"no syscall filter ({problem}): a bot may make user namespaces and mount file"
        " systems inside its sandbox"
    )
    return replace(
        found,
        filter_detail=f"NO: {problem}",
        warning=f"{found.warning}; {warning}" if found.warning else warning,
    )


def seat_start(mode: str) -> str:
    """``fork`` where seats can be forked from a template here (a namespace mode, as
    root), else ``exec``; ``DP_ARENA_SEATS=exec`` forces the latter."""
    forced = os.environ.get("DP_ARENA_SEATS", "").strip().lower()
    if forced and forced not in SEAT_STARTS:
        raise ValueError(f"DP_ARENA_SEATS must be one of {', '.join(SEAT_STARTS)}, not {forced!r}")
    if forced == "exec" or mode == "none" or not _is_root() or shutil.which("setpriv") is None:
        return "exec"
    return "fork"


def syscall_filter() -> bytes | None:
    """The filter every bot runs under here, or ``None`` when there is none."""
    return seccomp.program() if detect().syscall_filter else None


def _detect_namespaces() -> Isolation:
    forced = os.environ.get("DP_ARENA_SANDBOX", "").strip().lower()
    if forced and forced not in MODES:
        raise ValueError(f"DP_ARENA_SANDBOX must be one of {', '.join(MODES)}, not {forced!r}")
    candidates = [forced] if forced else list(MODES)
    problems = []
    for mode in candidates:
        if mode == "none":
            break
        problem = _probe(mode)
        if problem is None:
            return _isolation(mode)
        problems.append(f"{mode}: {problem}")
    warning = (
        "no namespaces could be made ("
        + ("; ".join(problems) if problems else "forced by DP_ARENA_SANDBOX")
        + "): the bot has network access, sees the host's files and a setsid child may outlive it;"
        " install bubblewrap (apt-get install bubblewrap) for real isolation"
    )
    own_uid = (
        _is_root()
        and shutil.which("setpriv") is not None
        and all(_world_reachable(path) for path in python_runtime())
    )
    return Isolation(
        "none",
        own_uid=own_uid,
        network_namespace=False,
        pid_namespace=False,
        private_filesystem=False,
        warning=warning,
    )


def _isolation(mode: str) -> Isolation:
    warning = None
    if not _is_root():
        warning = (
            "not running as root: the bot runs as your own user, so the process limit"
            " counts all your processes"
        )
    return Isolation(
        mode,
        own_uid=_is_root(),
        network_namespace=True,
        pid_namespace=True,
        private_filesystem=True,
        warning=warning,
        proc_masked=True,
    )


def _probe(mode: str, filter_program: bytes | None = None) -> str | None:
    """None if ``mode`` (with ``filter_program``, if given) can start a sandboxed
    ``true`` here, else why not."""
    from dp_arena.sandbox.spawn import launcher_argv

    if mode != "none":
        tool = "bwrap" if mode == "bubblewrap" else "unshare"
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
        if _is_root() and shutil.which("setpriv") is None:
            return "setpriv is not installed"
    probe_dir = tempfile.mkdtemp(prefix="dp-arena-probe-")
    try:
        os.chmod(probe_dir, 0o755)
        command = _wrap(
            mode,
            ["/bin/sh", "-c", "exit 0"],
            bot_dir=Path(probe_dir),
            own=Path(probe_dir),
            runtime=RuntimeView(),
            limits=Limits(),
            uid=next_uid() if _is_root() and mode != "none" else None,
            filter_program=filter_program,
        )
        try:
            completed = subprocess.run(
                launcher_argv(command, []),
                env=command.env,
                cwd="/",
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return str(error)
        finally:
            if command.scratch:
                shutil.rmtree(command.scratch, ignore_errors=True)
        if completed.returncode != 0:
            return (completed.stderr.decode("utf-8", "replace").strip().splitlines() or ["failed"])[
                -1
            ][:200]
        return None
    finally:
        shutil.rmtree(probe_dir, ignore_errors=True)


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


def sandbox_command(
    argv: Sequence[str],
    *,
    bot_dir: Path,
    runtime: RuntimeView,
    limits: Limits,
    own: Path | None = None,
    runner_args: Sequence[str] | None = None,
) -> SandboxCommand:
    """The command that runs ``argv`` in the sandbox detected here, in the working
    directory ``bot_dir``, with the bot's ``own`` files (a file or a folder; by default
    ``bot_dir``: each seat reads a private copy) and ``runtime`` (with the system's view)
    visible read-only, every page of which this dealer keeps in memory from now on.
    ``runner_args``: for a Python bot, the arguments of its runner (its seat may then be
    forked from a template)."""
    active = detect()
    mode = active.mode
    bot_dir = bot_dir.resolve()
    own = own.resolve() if own is not None else bot_dir
    uid = None
    # Without a private filesystem the bot's own uid must reach the runtime through the
    # host's permissions; when it cannot (Python installed under /root), the bot keeps
    # the dealer's uid rather than fail to start.
    filter_program = syscall_filter()
    if active.private_filesystem:
        hold(system_view() | runtime, own)
    shown = [Path(path) for path in (*runtime.trees, *runtime.files)]
    needed = [*shown, own, *(python_runtime() if filter_program else ())]
    reachable = mode != "none" or all(_world_reachable(path) for path in needed)
    if _is_root() and _setpriv() and reachable:
        uid = next_uid()
    plan = template_plan(runner_args, bot_dir=bot_dir, runtime=runtime, limits=limits, own=own)
    if plan is not None and uid is not None:
        # Forked from a template: the command is the runner's own, and is wrapped in a
        # sandbox of its own (exec_command) only if no template can make the seat.
        return SandboxCommand(tuple(argv), minimal_env(), str(bot_dir), uid, template=plan)
    return _wrap(
        mode,
        list(argv),
        bot_dir=bot_dir,
        own=own,
        runtime=runtime,
        limits=limits,
        uid=uid,
        filter_program=filter_program,
    )


def template_plan(
    runner_args: Sequence[str] | None,
    *,
    bot_dir: Path,
    runtime: RuntimeView,
    limits: Limits,
    own: Path | None = None,
) -> TemplatePlan | None:
    """The template a Python bot's seats are forked from here, or ``None`` when its
    seats are exec'd (see :func:`seat_start`)."""
    active = detect()
    if runner_args is None or active.seats != "fork":
        return None
    bot_dir = bot_dir.resolve()
    return TemplatePlan(
        active.mode,
        tuple(runner_args),
        bot_dir,
        own.resolve() if own is not None else bot_dir,
        runtime,
        limits.memory_bytes,
        syscall_filter(),
    )


def exec_command(command: SandboxCommand, limits: Limits) -> SandboxCommand:
    """A forked seat's command, wrapped to be exec'd in a sandbox of its own instead."""
    plan = command.template
    if plan is None:
        return command
    return _wrap(
        plan.mode,
        list(command.argv),
        bot_dir=plan.bot_dir,
        own=plan.own,
        runtime=plan.runtime,
        limits=limits,
        uid=command.uid,
        filter_program=plan.filter_program,
    )


@functools.cache
def _setpriv() -> str | None:
    return shutil.which("setpriv")


def template_command(plan: TemplatePlan) -> SandboxCommand:
    """The command that starts a template of ``plan``'s sandbox (:mod:`dp_arena.sandbox.zygote`):
    the bot's own sandbox, as root with the capabilities a seat's set-up needs, without
    limits, uid or filter (each seat sets its own)."""
    masks = ",".join(target.removeprefix("/proc/") for _, target in proc_masks(plan.memory_bytes))
    argv = [sys.executable, "-I", "-m", "dp_arena.sandbox.zygote", "--masks", masks]
    argv += ["--own", str(plan.own)]
    if plan.filter_program is not None:
        argv += ["--filter", plan.filter_program.hex()]
    # Each seat's fresh /tmp would hide what the runtime shows under /tmp: shown again.
    view = system_view() | plan.runtime
    for path in [*view.trees, *view.files]:
        if _within(path, "/tmp"):
            argv += ["--under-tmp", path]
    for path, target in view.links:
        if _within(path, "/tmp"):
            argv += ["--under-tmp-link", f"{path}={target}"]
    return _wrap(
        plan.mode,
        [*argv, "--", *plan.runner_args],
        bot_dir=plan.bot_dir,
        own=plan.own,
        runtime=plan.runtime,
        limits=Limits(memory_bytes=plan.memory_bytes),
        uid=None,
        template=True,
    )


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


# Views and own files this dealer keeps in memory, and when each was last walked.
_held: dict[object, float] = {}
# A view is walked again (for files made since: a module's compiled code, say) at most
# this often; a walk of a Python bot's view takes about 40 ms once its files are held.
WALK_AGAIN = 10.0


def hold(view: RuntimeView, own: Path | None = None) -> Residency:
    """Keep every page of ``view`` (and of ``own``, the source of each seat's private
    copy) in this dealer's memory from now on (:func:`~dp_arena.sandbox.runtime.keep_resident`);
    a view or folder is walked again for new files at most every :data:`WALK_AGAIN`
    seconds."""
    now = time.monotonic()
    for key, files in ((view, view.regular_files), (own, lambda: _own_files(own))):
        if key is not None and now - _held.get(key, -WALK_AGAIN) >= WALK_AGAIN:
            keep_resident(files())
            _held[key] = now
    return resident()


def _own_files(own: Path | None) -> list[str]:
    if own is None:
        return []
    if own.is_file():
        return [str(own)]
    return [
        os.path.join(folder, name)
        for folder, _, names in os.walk(own)
        for name in names
        if os.path.isfile(os.path.join(folder, name))
    ]


def _world_reachable(path: Path) -> bool:
    """Whether a process of another uid can read ``path`` through the host's permissions."""
    try:
        if not os.stat(path).st_mode & 0o004:
            return False
        return all(os.stat(ancestor).st_mode & 0o001 for ancestor in path.parents)
    except OSError:
        return False


def _limits_argv(limits: Limits) -> list[str]:
    if (
        shutil.which("prlimit") is None
    ):  # util-linux without prlimit: the limits are lost, say so upstream
        return []
    return [
        "prlimit",
        f"--as={limits.memory_bytes}",
        # SIGXCPU at the soft limit, SIGKILL a second later for a bot that catches it.
        f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",
        f"--nofile={limits.open_files}",
        f"--nproc={limits.processes}",
        f"--fsize={limits.file_size}",
        "--core=0",
        "--",
    ]


def _drop_argv(uid: int | None) -> list[str]:
    if uid is None:
        return []
    return [
        "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]


def _wrap(
    mode: str,
    argv: list[str],
    *,
    bot_dir: Path,
    own: Path,
    runtime: RuntimeView,
    limits: Limits,
    uid: int | None,
    filter_program: bytes | None = None,
    template: bool = False,
) -> SandboxCommand:
    """``argv`` as a command in ``mode``'s sandbox: under the bot's limits, its uid and
    the syscall filter (a template's seats set their own), inside the namespaces and
    read-only root of :func:`_bubblewrap` or :func:`_unshare`, or as it is (``none``).
    A seat's own files are a private copy, made in its scratch folder (a template shows
    the originals: each of its seats makes its own copy)."""
    launcher: list[str] = []
    if filter_program is not None and mode != "bubblewrap":
        # No bubblewrap to load the filter: a launcher installs it, then execs the bot.
        launcher = [sys.executable, "-I", "-S", seccomp.__file__, filter_program.hex()]
        runtime = runtime | python_view()
    # A template sets each seat's limits, uid and filter itself.
    inner = argv if template else _limits_argv(limits) + _drop_argv(uid) + launcher + argv
    if mode == "none":
        return SandboxCommand(tuple(inner), minimal_env(), str(bot_dir), uid)
    view = system_view() | runtime
    scratch = tempfile.mkdtemp(prefix="dp-arena-seat-")
    os.chmod(scratch, 0o755)
    shown = own if template else private_copy(own, Path(scratch) / "own")
    if mode == "bubblewrap":
        command = _bubblewrap(
            inner,
            view=view,
            own=(str(shown), str(own)),
            bot_dir=bot_dir,
            limits=limits,
            uid=uid,
            filter_program=filter_program,
            template=template,
        )
    else:
        command = _unshare(
            inner,
            view=view,
            own=(str(shown), str(own)),
            root=os.path.join(scratch, "root"),
            bot_dir=bot_dir,
            limits=limits,
            uid=uid,
        )
    return replace(command, scratch=scratch)


def _bubblewrap(
    inner: list[str],
    *,
    view: RuntimeView,
    own: tuple[str, str],
    bot_dir: Path,
    limits: Limits,
    uid: int | None,
    filter_program: bytes | None,
    template: bool,
) -> SandboxCommand:
    """``inner`` under ``bwrap``: new namespaces, and a root holding the runtime ``view``
    read-only, a fresh ``/proc`` (its host-wide figures masked), ``/dev`` and ``/tmp``,
    and the bot's ``own`` files (``(source, path)``: a seat's private copy at the path
    of the originals) read-only; bubblewrap loads the filter."""
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
    if not _is_root():
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

    for source, target in _binds(view, own):
        parents(target)
        outer += ["--ro-bind", source, target]
        made.add(target)
    for hidden in view.hidden:
        outer += ["--perms", "0755", "--tmpfs", hidden, "--remount-ro", hidden]
    for path, target in view.links:  # last: nothing is ever made through a link
        parents(path)
        outer += ["--symlink", target, path]
    outer += ["--chdir", str(bot_dir)]
    if template:
        for capability in TEMPLATE_CAPABILITIES:
            outer += ["--cap-add", capability]
    elif uid is not None:
        outer += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    seccomp_file = None
    if filter_program is not None:
        outer += ["--seccomp", str(SECCOMP_FD)]
        seccomp_file = host_file("seccomp.bpf", filter_program)
    return SandboxCommand(
        (*outer, "--", *inner), minimal_env(), "/", uid, seccomp_file=seccomp_file
    )


def _binds(view: RuntimeView, own: tuple[str, str]) -> list[tuple[str, str]]:
    """``(source, path)`` read-only binds of a view's folders and files and of the bot's
    own files, outermost first."""
    binds = [(path, path) for path in (*view.trees, *view.files)] + [own]
    return sorted(binds, key=lambda bind: (bind[1].count("/"), bind[1]))


def _unshare(
    inner: list[str],
    *,
    view: RuntimeView,
    own: tuple[str, str],
    root: str,
    bot_dir: Path,
    limits: Limits,
    uid: int | None,
) -> SandboxCommand:
    """``inner`` under ``unshare``: the same namespaces, and a shell script that builds the
    same read-only root at ``root`` and enters it (:func:`_unshare_script`)."""
    os.mkdir(root, 0o755)
    script = _unshare_script(root, view, own, bot_dir, limits, inner)
    outer = ["unshare", "--mount", "--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child"]
    if not _is_root():
        outer.append("--map-root-user")
    return SandboxCommand((*outer, "/bin/sh", "-c", script), minimal_env(), "/", uid)


def _unshare_script(
    root: str,
    view: RuntimeView,
    own: tuple[str, str],
    bot_dir: Path,
    limits: Limits,
    inner: Sequence[str],
) -> str:
    """A shell script, run as root in fresh namespaces, that builds the bot's read-only
    root filesystem at ``root`` (the same layout bubblewrap makes) and enters it."""
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
    for source, path in _binds(view, own):
        bind(source, path)
    for hidden in view.hidden:
        lines.append(f'mount -t tmpfs -o ro,mode=0755 dp-arena-hidden "$R"{quote(hidden)}')
    for path, target in view.links:  # last: nothing is ever made through a link
        folder = '"$R"' + quote(os.path.dirname(path))
        lines.append(f'mkdir -p {folder} && ln -s {quote(target)} "$R"{quote(path)}')
    lines.append('chmod 0755 "$R"')
    command = " ".join(quote(part) for part in inner)
    enter = f"cd {quote(str(bot_dir))} && PATH={SANDBOX_PATH} exec {command}"
    lines.append(f'exec chroot "$R" /bin/sh -c {quote(enter)}')
    return "\n".join(lines)


def _fstab_path(path: str) -> str:
    """A path as an fstab field (blanks and backslashes octal-escaped)."""
    return "".join(f"\\{ord(char):03o}" if char in " \t\n\\" else char for char in path)


def uid_processes(uid: int) -> list[int]:
    """Live (not zombie) processes whose real uid is ``uid``, found through ``/proc``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", "rb") as status:
                text = status.read().decode("ascii", "replace")
        except OSError:
            continue
        state = uid_line = ""
        # Lines end with "\n" only: splitlines() would also split the process's name
        # (the bot sets it) at \x1c-\x1e, which the kernel leaves as they are, so a name
        # such as "x\x1cUid:\t0" would pass for the uid line and hide the process.
        for line in text.split("\n"):
            if line.startswith("State:"):
                state = line.split()[1]
            elif line.startswith("Uid:"):
                uid_line = line.split()[1]
                break
        if uid_line == str(uid) and state not in ("Z", "X"):
            found.append(int(entry))
    return found


def kill_uid(uid: int) -> int:
    """SIGKILL every process running as ``uid`` (a bot's own uid); how many were found."""
    pids = uid_processes(uid)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return len(pids)
