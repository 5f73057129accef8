"""A warm template of one bot's sandbox, from which each of its seats is forked.

Started by the dealer (:mod:`dp_arena.sandbox.dealer.template`) inside the sandbox exactly as the
bot itself would be (the same namespaces, read-only root, runtime, own files and
``/proc`` stand-ins), but as the host's root with only the capabilities a seat's set-up
needs (``CAP_SYS_ADMIN`` for namespaces and mounts, ``CAP_NET_ADMIN`` for the loopback,
``CAP_SETUID``, ``CAP_SETGID`` and ``CAP_SETPCAP`` to drop them)::

    python -I -m dp_arena.sandbox.bot.zygote [--filter HEX] --masks NAMES --own PATH
        [--under-tmp PATH] [--under-tmp-link PATH=TARGET] -- SPEC [--path DIR]

It imports what every Python bot's host imports (the agent API, the engine and its
evaluator's tables, the runner) and the dp-arena modules the bot's file names, and
**runs no bot code**. Then it reads requests on fd 0,
a Unix seqpacket socket whose other end only the dealer holds: each is the seat's uid
and limits, with four file descriptors (the seat's stdin, stdout and stderr pipes and a
status socket). Each request becomes two fresh processes::

    template ── init   pid 1 of a new PID namespace, made as the template forks it; the
                  │      dealer moves it into the seat's budget (cgroups) before anything
                  │      else happens; then new mount, network, IPC, UTS and cgroup
                  │      namespaces: a fresh /proc (and its stand-ins), /tmp and
                  │      /dev/pts, a private copy of the bot's own files over them;
                  │      reaps, and reports the bot's exit status
                  └── bot  fds 0-2 only, the limits, its own uid, no capabilities,
                           no_new_privs, the syscall filter, a reseeded random
                           module; then the runner loads the bot

What a fork shares, and why none of it is a channel between seats: memory is copied on
write (the template holds only dp-arena's own modules and the libraries they import: no
deck, no key, no other bot's state, since no bot code ever ran in it); file descriptors
are closed down to the three pipes before the bot's code runs; the uid, limits,
capabilities and filter are set in the bot process itself; the cgroups are the seat's
own (the init joins them before it does anything else); every namespace that could
carry state (mounts and ``/tmp``, PIDs and ``/proc``, network and abstract sockets,
System V IPC, ``/dev/pts``) is new for each seat; the bot's own files are a copy made
for the seat alone (in a file system of its own, counted in its budget), so its
mirrored copies never read one file; the random module (and NumPy's global generator,
when loaded) is reseeded from the kernel. ``docs/sandbox.md`` says more.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import random
import resource
import select
import signal
import socket
import sys
import traceback
from pathlib import Path
from typing import Any, NoReturn

from dp_arena.sandbox.bot.walls import (
    CLONE_NEWPID,
    LIBC,
    PR_SET_PDEATHSIG,
    RLIMITS,
    SEAT_NAMESPACES,
    check,
    clear_capabilities,
    drop_bounding_set,
    loopback_up,
    prctl,
    seat_mounts,
)

__all__ = ["main"]

# Exit status of a seat process whose set-up failed (before any bot code ran).
SETUP_FAILED = 125


def _send(status: socket.socket, message: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):  # the dealer is gone: nobody left to tell
        status.send(json.dumps(message).encode())


def _fail(status: socket.socket | None, where: str, error: BaseException) -> NoReturn:
    """A seat's set-up failed: say why on stderr (the bot's log) and the status socket."""
    text = f"dp-arena: cannot make the seat ({where}): {type(error).__name__}: {error}"
    with contextlib.suppress(OSError):
        os.write(2, (text + "\n").encode("utf-8", "replace"))
    if status is not None:
        _send(status, {"error": text[:500]})
    os._exit(SETUP_FAILED)


class _Config:
    def __init__(self, args: argparse.Namespace) -> None:
        from dp_arena.sandbox.confinement import seccomp

        program = bytes.fromhex(args.filter) if args.filter else None
        self.filter = seccomp.Prepared(program) if program is not None else None
        self.masks = [f"/proc/{name}" for name in args.masks.split(",") if name]
        self.own: str = args.own
        self.own_bytes = 0  # what the copy of the bot's own files takes (set by _warm_up)
        self.under_tmp: list[str] = args.under_tmp
        self.under_tmp_links = [link.split("=", 1) for link in args.under_tmp_link]
        self.runner_args: list[str] = args.runner
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as last:
            self.last_cap = int(last.read())
        # Inherited by each seat's init, which closes both before it goes on: the
        # template's own PID namespace (its children are made there again after each
        # seat's) and a pidfd of the template (whether it is still alive).
        self.own_pid_namespace = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        self.template_pidfd = os.pidfd_open(os.getpid())
        self.runner: _Runner | None = None  # set by _warm_up


class _Runner:
    """The runner's module, found and compiled once here, to run as each seat's
    ``__main__`` (what ``python -m dp_arena.sandbox.bot.runner`` would find and compile)."""

    def __init__(self) -> None:
        import importlib.util

        spec = importlib.util.find_spec("dp_arena.sandbox.bot.runner")
        assert spec is not None and spec.loader is not None and spec.origin is not None
        self.spec = spec
        self.code = spec.loader.get_code(spec.name)  # type: ignore[attr-defined]


def _warm_up(config: _Config) -> None:
    """Import what the runner and the bots it hosts import, load the evaluator's tables,
    and compile the runner and the bot's file: the work every seat would otherwise repeat.
    No bot code runs here (compiling a file runs none of it)."""
    import dp_arena.agents
    import dp_arena.agents.observation
    import dp_arena.agents.spec
    import dp_arena.engine
    import dp_arena.engine.cards
    import dp_arena.sandbox.bot.runner
    import dp_arena.sandbox.protocol  # noqa: F401
    from dp_arena.agents.spec import SpecKind, parse_spec, precompile, project_imports
    from dp_arena.engine import evaluate

    evaluate(list(range(7)))
    config.own_bytes = _read_own_files(config.own)
    if config.runner_args:
        bot = parse_spec(config.runner_args[0])
        if bot.kind is SpecKind.FILE:
            precompile(Path(str(bot.target)))
            _import_project_modules(project_imports(Path(str(bot.target))))
    config.runner = _Runner()
    _check_single_threaded()
    # Every seat's collector would otherwise walk all of this, touching each page and so
    # copying it (milliseconds and megabytes a seat): what the template holds is kept.
    gc.collect()
    gc.freeze()
    # And the heap's free pages go back to the kernel: each fork would copy their entries.
    with contextlib.suppress(AttributeError):  # glibc's; other C libraries may lack it
        LIBC.malloc_trim(0)


def _read_own_files(own: str) -> int:
    """Read every file of the bot's own files once, so that their pages are in memory,
    counted where the template is (never in a seat's budget) when each seat copies them,
    and return how many bytes a copy takes."""
    total = 0
    for path in _files_below(own):
        with contextlib.suppress(OSError), open(path, "rb") as file:
            while chunk := file.read(1 << 20):
                total += len(chunk)
    return total


def _files_below(own: str) -> list[str]:
    if not os.path.isdir(own) or os.path.islink(own):
        return [own] if os.path.isfile(own) else []
    paths = (os.path.join(folder, name) for folder, _, names in os.walk(own) for name in names)
    return [path for path in paths if os.path.isfile(path) and not os.path.islink(path)]


def _import_project_modules(names: list[str]) -> None:
    """Import the dp-arena modules a bot's file names (and what they import: the learned
    bot's policy brings NumPy), so that its seats do not each import them again. Only
    dp-arena's own modules: the package is the template's, so none of these is ever
    found in the bot's folders."""
    import importlib
    import importlib.util

    for name in names:
        try:
            if importlib.util.find_spec(name) is not None:  # not a name within a module
                importlib.import_module(name)
        except Exception:  # each seat meets the error itself as the bot imports the module
            continue


def _check_single_threaded() -> None:
    """A fork copies only the thread that forks: a template with any other thread (none
    of dp-arena's modules starts one) would hand its seats locks that nobody releases."""
    with contextlib.suppress(OSError):  # no /proc here: nothing to check with
        threads = len(os.listdir("/proc/self/task"))
        if threads != 1:
            raise RuntimeError(f"the template holds {threads} threads after its imports")


def _serve(control: socket.socket, config: _Config) -> None:
    """Fork a seat for each request until the dealer closes the control socket."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # seats' inits are reaped by the kernel
    control.send(b'{"ready": true}')
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 65536, 4)
        except InterruptedError:
            continue
        if not data:
            return
        if len(fds) != 4:
            for fd in fds:
                os.close(fd)
            continue
        request = json.loads(data)
        try:
            check(LIBC.unshare(CLONE_NEWPID), "unshare")
        except OSError as error:  # no seat this time: the dealer execs it instead
            _refuse(fds, f"dp-arena: cannot make the seat (a PID namespace): {error}")
            continue
        try:
            init = _fork_in_new_pid_namespace(config)
        except OSError as error:
            _refuse(fds, f"dp-arena: cannot make the seat (fork): {error}")
            continue
        if init == 0:
            try:
                _init(control, config, request, fds)
            except BaseException as error:  # never back into the template's loop
                _fail(None, "init", error)
            os._exit(0)
        for fd in fds:
            os.close(fd)
        del request, data, fds


def _fork_in_new_pid_namespace(config: _Config) -> int:
    """``os.fork`` into the new PID namespace just made for the template's children (the
    child is its pid 1), then make the template's children in its own PID namespace
    again. A template that cannot ends at once: a second seat must never be forked into
    the first one's namespace."""
    try:
        init = os.fork()
    except BaseException:
        _own_pid_namespace_again(config)
        raise
    if init != 0:
        _own_pid_namespace_again(config)
    return init


def _own_pid_namespace_again(config: _Config) -> None:
    try:
        check(LIBC.setns(config.own_pid_namespace, CLONE_NEWPID), "setns")
    except OSError as error:
        _fail(None, "template: its own PID namespace again", error)  # the template ends


def _refuse(fds: list[int], text: str) -> None:
    """Tell the dealer over the seat's status socket that no seat was made, and close
    what the request brought."""
    with socket.socket(fileno=fds[3]) as status:
        _send(status, {"error": text[:500]})
    for fd in fds[:3]:
        os.close(fd)


def _keep_only(keep: list[int]) -> None:
    """Close every file descriptor but ``keep`` (sorted)."""
    low = 0
    for fd in [*sorted(keep), 1 << 20]:
        if low < fd:
            os.closerange(low, fd)
        low = fd + 1


def _init(control: socket.socket, config: _Config, request: dict[str, Any], fds: list[int]) -> None:
    """Pid 1 of the seat's namespaces, forked into its new PID namespace by the template:
    waits until the dealer has moved it into the seat's cgroups (its budget), then makes
    the seat's other namespaces and mounts, forks the bot, and reaps until the bot ends,
    reporting its exit status (every other process of the seat dies with this one)."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL, "PR_SET_PDEATHSIG")
    # The template died before the line above (its parent's pid is 0 here: it is outside
    # this PID namespace): its pidfd says so.
    template_gone = select.poll()  # poll, not select: no descriptor is out of its range
    template_gone.register(config.template_pidfd, select.POLLIN)
    if template_gone.poll(0):
        os._exit(0)
    stdin, stdout, stderr, status_fd = fds
    control.detach()
    _keep_only([2, stdin, stdout, stderr, status_fd])
    status = socket.socket(fileno=status_fd)
    # The dealer reads this process's host pid from the message, and keeps a pidfd of it.
    itself = os.pidfd_open(os.getpid())
    socket.send_fds(status, [b'{"forked": true}'], [itself])
    os.close(itself)
    try:
        answer = status.recv(64)
    except OSError:
        answer = b""
    if answer != b"go":
        os._exit(0)  # the dealer gave up on this seat
    try:
        check(LIBC.unshare(SEAT_NAMESPACES), "unshare")
    except OSError as error:
        _fail(status, "namespaces", error)
    pipes = [stdin, stdout, stderr]
    try:
        os.setsid()
        seat_mounts(
            masks=config.masks,
            under_tmp=config.under_tmp,
            under_tmp_links=config.under_tmp_links,
            own=config.own,
            own_bytes=config.own_bytes,
            tmp_bytes=int(request["tmp_bytes"]),
        )
        loopback_up()
        bot = os.fork()
    except BaseException as error:
        _fail(status, "init", error)
    if bot == 0:
        try:
            _become_bot(config, request, pipes, status)
        except BaseException as error:
            _fail(None, "bot", error)
        if request.get("probe"):  # the dealer's check that seats can be made here
            os._exit(0)
        _run_bot(config)
    for fd in pipes:
        os.close(fd)
    _drop_everything(config)
    while True:
        try:
            pid, code = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(0)
        if pid == bot:
            exit_code = -os.WTERMSIG(code) if os.WIFSIGNALED(code) else os.WEXITSTATUS(code)
            _send(status, {"exit": exit_code})
            os._exit(0)


def _drop_everything(config: _Config) -> None:
    """The init keeps root's uid (it must outlive the bot's) but nothing else."""
    drop_bounding_set(config.last_cap)
    clear_capabilities()
    if config.filter is not None:
        config.filter.install()


def _become_bot(
    config: _Config, request: dict[str, Any], pipes: list[int], status: socket.socket
) -> None:
    """Everything between the fork and the bot's code: its three pipes and nothing
    else, its limits, its uid, no capabilities, the filter, fresh randomness."""
    status.close()
    for target, fd in enumerate(pipes):
        os.dup2(fd, target)
    _keep_only([0, 1, 2])
    for name, soft, hard in request["rlimits"]:
        resource.setrlimit(RLIMITS[name], (soft, hard))
    uid = int(request["uid"])
    drop_bounding_set(config.last_cap)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)  # leaving uid 0 empties the permitted and effective sets
    clear_capabilities()  # and the inheritable one
    if config.filter is not None:
        config.filter.install()  # sets no_new_privs first
    else:
        prctl(38, 1, "PR_SET_NO_NEW_PRIVS")
    random.seed()  # the template's state is every seat's: each gets its own
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:  # imported by the template for the bot's dp-arena modules
        numpy_random.seed()
    _fresh_stdio()


def _fresh_stdio() -> None:
    """Standard streams over the seat's pipes (the template's were over its own fds)."""
    encoding, errors = sys.stdin.encoding, sys.stdin.errors
    sys.stdin = io.TextIOWrapper(
        io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding=encoding, errors=errors
    )
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
        encoding=encoding,
        errors=errors,
        line_buffering=True,
    )
    sys.stderr = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
        encoding=encoding,
        errors="backslashreplace",
        line_buffering=True,
    )
    # What an exec'd runner's are too: its standard streams, over fds 0-2.
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr  # type: ignore[misc]


def _run_bot(config: _Config) -> NoReturn:
    """The runner, as ``python -I -m dp_arena.sandbox.bot.runner SPEC ...`` runs it: as the
    ``__main__`` module (the zygote's own module is ``__main__`` no more), from the code
    the template compiled."""
    import atexit
    import types

    assert config.runner is not None, "the template warms up before it serves"
    runner = config.runner
    spec = runner.spec
    main = types.ModuleType("__main__")
    main.__dict__.update(
        __file__=spec.origin,
        __cached__=spec.cached,
        __loader__=spec.loader,
        __package__=spec.parent,
        __spec__=spec,
    )
    sys.argv = [str(spec.origin), *config.runner_args]
    sys.modules.pop("dp_arena.sandbox.bot.runner", None)  # it runs as __main__, as with -m
    sys.modules["__main__"] = main
    try:
        exec(runner.code, main.__dict__)
        code = 0
    except SystemExit as exit_request:
        code = exit_request.code if isinstance(exit_request.code, int) else 1
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dp_arena.sandbox.bot.zygote")
    parser.add_argument("--filter", default="", help="the syscall filter, in hex")
    parser.add_argument("--masks", default="", help="/proc files with stand-ins, by name")
    parser.add_argument("--own", required=True, help="the bot's own files, copied for each seat")
    parser.add_argument(
        "--under-tmp", action="append", default=[], help="a visible path under /tmp"
    )
    parser.add_argument(
        "--under-tmp-link", action="append", default=[], help="a link under /tmp: PATH=TARGET"
    )
    parser.add_argument("runner", nargs=argparse.REMAINDER, help="-- SPEC [--path DIR]")
    args = parser.parse_args(argv)
    if args.runner[:1] == ["--"]:
        args.runner = args.runner[1:]
    config = _Config(args)
    _warm_up(config)
    control = socket.socket(fileno=0)
    _serve(control, config)
    return 0


if __name__ == "__main__":
    sys.exit(main())
