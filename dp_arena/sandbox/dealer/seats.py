"""Seating an agent spec: :func:`open_seat` and its kin, the dealer's side of the
sandbox (what :mod:`dp_arena.sandbox` makes public; see its docstring)."""

from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from dp_arena.agents.locate import locate_module
from dp_arena.agents.observation import DealEnd, DealStart, Observation, SessionContext
from dp_arena.agents.seat import InProcessSeat, Seat, SeatFault
from dp_arena.agents.spec import AgentSpec, SpecKind, load_agent, parse_spec
from dp_arena.engine.actions import Action
from dp_arena.engine.mixes import Mix
from dp_arena.errors import AgentError, DPArenaError
from dp_arena.results import FaultKind
from dp_arena.sandbox.confinement.isolation import Isolation, detect, sandbox_command
from dp_arena.sandbox.confinement.mounts import own_files, program_runtime
from dp_arena.sandbox.confinement.runtime import RuntimeView, python_view
from dp_arena.sandbox.dealer.process import ProcessSeat
from dp_arena.sandbox.limits import Limits

__all__ = [
    "BotLaunch",
    "FailedSeat",
    "close_seats",
    "folder_problem",
    "is_acpc",
    "launch_for",
    "load_fault",
    "load_hint",
    "open_seat",
    "prepare",
    "resolve",
    "runs_in_process",
]


def runs_in_process(spec: AgentSpec, trusted: bool) -> bool:
    """Whether a seat of ``spec`` (resolved: a bot folder's or a registry bot's manifest
    read) runs in the dealer's own process: a built-in bot always, a Python bot when it
    is ``trusted``; everything else runs sandboxed. The one place this is decided."""
    return spec.kind is SpecKind.BUILTIN or (trusted and spec.is_python)


@dataclass(frozen=True, slots=True)
class BotLaunch:
    """How to start an untrusted bot: its argv (before sandboxing), its working
    directory, its own files (visible read-only: the folder, or for a lone
    ``file.py:Class`` bot the file alone) and the runtime it needs to see."""

    argv: tuple[str, ...]
    bot_dir: Path
    runtime: RuntimeView
    own: Path
    runner_args: tuple[str, ...] | None = None  # a Python bot's: what its runner is given


class FailedSeat(Seat):
    """A seat whose bot could not be loaded: its first call reports why, then it is
    inactive and the table plays it as an absent player."""

    def __init__(self, name: str, fault: SeatFault) -> None:
        self.name = name
        self.fault = fault
        self._reported = False

    @property
    def active(self) -> bool:
        return not self._reported

    def _report(self) -> SeatFault:
        if self._reported:
            return SeatFault(self.fault.kind, f"not loaded ({self.fault.detail[:100]})")
        self._reported = True
        return self.fault

    def wait_loaded(self) -> SeatFault | None:
        return self.fault

    def begin_session(self, context: SessionContext) -> SeatFault | None:
        return self._report()

    def begin_deal(self, start: DealStart) -> SeatFault | None:
        return self._report()

    def decide(self, observation: Observation) -> Action | Mix | SeatFault:
        return self._report()

    def end_deal(self, end: DealEnd) -> SeatFault | None:
        return self._report()

    def close(self) -> None:
        return None


def _runner_args(target: str, paths: tuple[str, ...] = ()) -> tuple[str, ...]:
    args = [target]
    for path in paths:
        args += ["--path", path]
    return tuple(args)


def _runner_argv(args: tuple[str, ...]) -> tuple[str, ...]:
    return (sys.executable, "-I", "-m", "dp_arena.sandbox.bot.runner", *args)


def _module_location(module: str) -> tuple[Path, Path]:
    """(sys.path entry, top-level package folder or file) of a module, found by looking
    at the file system only: importing it here would run untrusted code in the dealer."""
    try:
        found = locate_module(module)
    except AgentError as error:
        raise AgentError(f"agent {module!r}: {error}") from None
    return found.entry, found.top


def launch_for(spec: AgentSpec | str, *, bot_dir: Path | None = None) -> BotLaunch:
    """How to run ``spec`` sandboxed (``bot_dir``: the bot's folder, as a bot folder or
    the registry gives it: a command runs there, and a Python bot sees all of it; by
    default a command runs in the folder of the first file its command line names).
    Raises :class:`ForbiddenProgram` for a command whose program the sandbox may not show
    (see :mod:`dp_arena.sandbox.confinement.mounts`)."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    if spec.kind in (SpecKind.FOLDER, SpecKind.REGISTRY):
        inner, _, folder = resolve(spec.text)
        return launch_for(inner, bot_dir=folder)
    if spec.kind in (SpecKind.FILE, SpecKind.BUILTIN):
        path = Path(str(spec.target)).expanduser().resolve()
        if not path.is_file():
            raise AgentError(f"agent {spec.text!r}: no such file {path}")
        args = _runner_args(f"{path}:{spec.class_name}")
        own = bot_dir.resolve() if bot_dir is not None else own_files(path)
        return BotLaunch(_runner_argv(args), path.parent, python_view(), own, args)
    if spec.kind is SpecKind.MODULE:
        entry, location = _module_location(str(spec.target))
        visible = location if location.is_dir() else location.parent
        args = _runner_args(f"{spec.target}:{spec.class_name}", (str(entry),))
        return BotLaunch(_runner_argv(args), visible, python_view(), visible, args)
    command = _command_launch(list(spec.target), bot_dir)
    if spec.kind is SpecKind.COMMAND:
        return command
    # An ACPC agent: dp-arena's shim is the bot's program, the agent its child, both in
    # the sandbox; the shim needs the Python view, the agent its own program's.
    shim = (sys.executable, "-I", "-m", "dp_arena.sandbox.bot.acpc_shim", "--", *command.argv)
    return BotLaunch(shim, command.bot_dir, python_view() | command.runtime, command.own)


def _command_launch(argv: list[str], bot_dir: Path | None) -> BotLaunch:
    """How to run a command line sandboxed (see :func:`launch_for`)."""
    base = bot_dir.resolve() if bot_dir is not None else Path.cwd()
    # Paths on the command line are made absolute: inside the sandbox the working
    # directory is the bot's folder, not the dealer's.
    files: list[Path] = []
    for index, argument in enumerate(argv):
        candidate = base / argument
        if not argument.startswith("-") and ("/" in argument or index > 0) and candidate.exists():
            argv[index] = str(candidate.absolute())
            if candidate.is_file():
                files.append(candidate.resolve())
    # The bot's folder: that of its script (``node bot.js``), else of the program itself.
    script = next(
        (path for path in files if str(path) != argv[0] and path != Path(argv[0]).resolve()), None
    )
    first_file = script or (files[0] if files else None)
    folder = (
        bot_dir.resolve() if bot_dir is not None else (first_file.parent if first_file else None)
    )
    if folder is None:
        folder = Path(tempfile.gettempdir()) / "dp-arena-empty"
        folder.mkdir(mode=0o755, exist_ok=True)
    return BotLaunch(tuple(argv), folder, program_runtime(argv[0], folder), folder)


def open_seat(
    spec: str,
    *,
    name: str,
    trusted: bool = False,
    limits: Limits | None = None,
    log_dir: Path | None = None,
    bot_dir: Path | None = None,
) -> Seat:
    """A seat for the agent ``spec`` (see the module docstring); never raises for a
    broken bot. ``log_dir`` keeps the bot's stderr; ``bot_dir`` is the folder a command
    bot runs in (default: the folder of the script its command line names)."""
    try:
        parsed, spec, stored_dir = _parsed(spec)
        bot_dir = stored_dir or bot_dir
        if runs_in_process(parsed, trusted):
            return InProcessSeat(load_agent(parsed), name)
        limits = limits or Limits()
        launch = launch_for(parsed, bot_dir=bot_dir)
        _warn_once(detect())
        command = sandbox_command(
            launch.argv,
            bot_dir=launch.bot_dir,
            runtime=launch.runtime,
            limits=limits,
            own=launch.own,
            runner_args=launch.runner_args,
        )
        return ProcessSeat(command, name=name, limits=limits, log_dir=log_dir)
    except (DPArenaError, OSError, ValueError) as error:
        return FailedSeat(name, SeatFault(FaultKind.LOAD_ERROR, f"{spec}: {error}"[:1000]))


def prepare(bots: Iterable[tuple[str, bool]], *, limits: Limits | None = None) -> None:
    """Get ready to seat each of ``bots`` (``(spec, trusted)`` pairs) many times in this
    process: start the warm templates of the sandboxed Python bots among them now, side
    by side, and keep spare seats of them made ahead from now on (see
    :mod:`dp_arena.sandbox.dealer.template`). Nothing changes for the others; a bot that cannot
    be prepared is left for its seat to report."""
    from dp_arena.sandbox.confinement.isolation import template_plan
    from dp_arena.sandbox.dealer import template
    from dp_arena.sandbox.dealer.spawn import SPARES

    limits = limits or Limits()
    plans = []
    for spec, trusted in dict.fromkeys(bots):
        try:
            parsed, _, bot_dir = _parsed(spec)
            if runs_in_process(parsed, trusted):
                continue
            launch = launch_for(parsed, bot_dir=bot_dir)
        except (DPArenaError, OSError, ValueError):
            continue
        plan = template_plan(
            launch.runner_args,
            bot_dir=launch.bot_dir,
            runtime=launch.runtime,
            limits=limits,
            own=launch.own,
        )
        if plan is not None:
            plans.append(plan)
            SPARES.allow(plan, limits)
    template.prepare(plans, limits.load_timeout)


def _parsed(spec: str) -> tuple[AgentSpec, str, Path | None]:
    return resolve(spec)


def resolve(spec: str) -> tuple[AgentSpec, str, Path | None]:
    """The spec parsed; a bot folder's or a registry bot's resolved to what its manifest
    says to run (a class, ``cmd:`` a command line or ``acpc:`` an ACPC agent), with its
    folder. :class:`~dp_arena.errors.DPArenaError` says why it names nothing."""
    parsed = parse_spec(spec)
    if parsed.kind is SpecKind.FOLDER:
        from dp_arena.registry import bot_folder

        folder = Path(str(parsed.target)).expanduser().absolute()
        try:
            seat, _ = bot_folder(folder)
        except DPArenaError as error:
            raise AgentError(f"agent {spec!r}: {_folder_problem(folder, error)}") from None
        return parse_spec(seat), seat, folder
    if parsed.kind is not SpecKind.REGISTRY:
        return parsed, spec, None
    from dp_arena.registry import Registry

    registry, reference = Registry.for_spec(parsed.text)
    stored = registry.resolve(reference)
    # The stored spec is what the bot's manifest says to run: a class, or a command line.
    return parse_spec(stored.seat_spec), stored.seat_spec, stored.folder


def _folder_problem(folder: Path, error: DPArenaError) -> str:
    """Why a bot folder names no bot, in words that say what to do."""
    if not folder.is_dir():
        import difflib

        parent = folder.parent
        if not parent.is_dir():
            return f"no such folder {folder}"
        siblings = [f"{path.name}/" for path in parent.iterdir() if path.is_dir()]
        close = difflib.get_close_matches(f"{folder.name}/", siblings, n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        return f"no such folder {folder}{hint}"
    if getattr(error, "reason", None) == "no_manifest":
        return (
            f"{folder} is a folder without a bot.toml, so it names no bot: a bot folder's"
            " bot.toml says what to run (dp-arena new-bot makes one; see docs/sandbox.md)"
        )
    return str(error)


def folder_problem(spec: str) -> str | None:
    """Why the bot folder ``spec`` names no bot that can start, found before anything
    starts: no folder (with a "did you mean"), no or a broken ``bot.toml``, an entry file
    or class it does not hold, a command's program the sandbox may not show; ``None``
    when it may load."""
    from dp_arena.agents.spec import class_problem

    try:
        inner, _, folder = resolve(spec)
        assert folder is not None
        if inner.kind is SpecKind.FILE:
            return class_problem(Path(str(inner.target)), inner)
        program = str(inner.target[0])
        if "/" in program and not (folder / program).exists():
            return _missing_program(program, folder)
        program_runtime(program, folder)
    except DPArenaError as error:
        return str(error).removeprefix(f"agent {spec!r}: ")
    return None


def _missing_program(program: str, folder: Path) -> str:
    """A bot folder's program that is not there: perhaps misspelled, perhaps not built."""
    from dp_arena.text import did_you_mean

    files = [path.name for path in folder.iterdir() if path.is_file()]
    built = any(name == "Makefile" or name.endswith((".c", ".cc", ".cpp")) for name in files)
    return (
        f"its bot.toml runs {program!r}, which is not in {folder}"
        + did_you_mean(Path(program).name, files)
        + ("; build it first (its README says how: make, or cc)" if built else "")
    )


_NO_MODULE = re.compile(r"No module named '([\w.]+)'")


def load_hint(spec: str, detail: str) -> str:
    """A sentence to add to a load fault's ``detail`` that says what to do, or ``""``:
    for an import that failed in the sandbox, whether the module is the bot's own
    neighbour (a lone file bot sees its file alone: a ``bot.toml`` makes its folder a
    bot folder) or a package of this machine's (the sandbox shows a Python bot the
    standard library, NumPy and dp-arena: a bot ships any other package itself)."""
    found = _NO_MODULE.search(detail)
    if found is None:
        return ""
    module = found.group(1).split(".")[0]
    try:
        parsed, _, folder = resolve(spec)
    except (DPArenaError, OSError, ValueError):
        return ""
    if parsed.kind is SpecKind.FILE:
        bot_file = Path(str(parsed.target)).expanduser()
        home = folder or bot_file.parent
        if (home / f"{module}.py").is_file() or (home / module).is_dir():
            if folder is None and own_files(bot_file.resolve()) == bot_file.resolve():
                return (
                    f" ({module} is beside {bot_file.name}, but a lone file.py:Class bot sees"
                    f" its file alone: a bot.toml beside it makes {bot_file.parent} a bot folder,"
                    " whose files the bot sees; dp-arena new-bot makes one)"
                )
            return ""
    if parsed.kind in (SpecKind.FILE, SpecKind.MODULE, SpecKind.BUILTIN):
        import importlib.util

        if importlib.util.find_spec(module) is not None:  # a top-level name: nothing runs
            return (
                f" ({module} is installed here, but a sandboxed Python bot sees only the"
                " standard library, NumPy and dp-arena of this machine's Python: ship a"
                f" pure-Python copy of {module} in the bot's folder, see docs/sandbox.md)"
            )
        return (
            " (a sandboxed Python bot sees only its own files, the standard library, NumPy"
            " and dp-arena)"
        )
    return ""


def is_acpc(spec: str) -> bool:
    """Whether ``spec`` seats an ACPC agent (``acpc:``, or a bot folder or registry bot
    whose manifest says ``protocol = "acpc"``), which plays no-limit only. A spec that
    names nothing is not."""
    try:
        return resolve(spec)[0].kind is SpecKind.ACPC
    except (DPArenaError, OSError, ValueError):
        return False


def close_seats(seats: list[Seat]) -> None:
    """Close every seat of a table: sandboxed bots are told goodbye all at once, and
    the reaper's thread sees them exit and ends them (within the same grace as
    :meth:`ProcessSeat.close`) while the caller goes on."""
    for seat in seats:
        if isinstance(seat, ProcessSeat):
            seat.say_goodbye()
    for seat in seats:
        if isinstance(seat, ProcessSeat):
            seat.close_later()
        else:
            seat.close()


def load_fault(
    spec: str,
    *,
    name: str,
    trusted: bool = False,
    limits: Limits | None = None,
    log_dir: Path | None = None,
) -> SeatFault | None:
    """Load ``spec`` exactly as :func:`open_seat` seats it, wait until it has loaded (its
    hello, within the load timeout) and close it: the load fault, or ``None``."""
    seat = open_seat(spec, name=name, trusted=trusted, limits=limits, log_dir=log_dir)
    try:
        return seat.wait_loaded()  # in-process: None, the class was made
    finally:
        seat.close()


_warned: set[str] = set()


def _warn_once(active: Isolation) -> None:
    """Say once per process, on stderr, when bots run without the isolation promised."""
    if active.warning and active.warning not in _warned:
        _warned.add(active.warning)
        print(f"dp-arena sandbox ({active.mode}): WARNING: {active.warning}", file=sys.stderr)
