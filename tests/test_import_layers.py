"""The package's layers: every import inside ``dp_arena`` points down (docs/architecture.md).

Each module's imports are read with :mod:`ast` (``import``, ``from ... import``, relative
imports, imports under ``TYPE_CHECKING`` and inside functions, and
``importlib.import_module("dp_arena...")`` with a literal name): an import is a
dependency wherever it sits. The allowed table is itself checked to have no cycle, so no
part can reach back up through another. Inside the tournament, a family of formats (a
subpackage) imports only the shared machinery (the top-level modules) below the registry
of formats, and the shared machinery reaches a format only through that registry. Light
layers are also imported for real in a fresh interpreter, to prove NumPy, Ray, PettingZoo
and Gymnasium stay out of them.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "dp_arena"

# Which parts of dp_arena each part may import (a part is a subpackage or a top-level
# module). Lowest first; docs/architecture.md draws the same table.
ALLOWED: dict[str, frozenset[str]] = {
    "errors": frozenset(),
    # Escaping untrusted text for terminals and files: a leaf every part may use.
    "text": frozenset(),
    # Writing files atomically (dp_arena.files): a leaf for every part that writes files.
    "files": frozenset(),
    # Fast construction of frozen records (dp_arena.frozen): a leaf the engine uses too.
    "frozen": frozenset(),
    # Package names loaded when first used (dp_arena.lazy): a leaf for packages.
    "lazy": frozenset(),
    # The words several layers spell alike (dp_arena.names): spec prefixes, file names.
    "names": frozenset(),
    # The one progress line of every command (dp_arena.progress): a leaf.
    "progress": frozenset(),
    # Records as JSON and back by one generic walk (dp_arena.records): a leaf over frozen.
    "records": frozenset({"frozen"}),
    "results": frozenset({"errors", "records"}),
    "keys": frozenset({"errors"}),
    "engine": frozenset({"errors", "frozen", "results"}),
    "agents": frozenset({"engine", "errors", "frozen", "names", "records", "results", "text"}),
    "registry": frozenset({"errors", "names", "results", "text"}),
    # A run directory: its layout and readers, its checkpoint store and lock. Below every
    # part that reads or writes runs (ratings, tournament, runner, leaderboard).
    "rundir": frozenset({"errors", "results"}),
    "sandbox": frozenset(
        {"agents", "engine", "registry", "errors", "lazy", "names", "records", "results", "text"}
    ),
    "ratings": frozenset({"engine", "errors", "names", "results", "rundir"}),
    "envs": frozenset({"agents", "engine", "errors", "lazy", "results"}),
    # The unit of work: table units, seats opened for them, executors, histories.
    "units": frozenset({"sandbox", "registry", "agents", "engine", "errors", "names", "results"}),
    # The rollout value of the draws: the ratings' terms, valued by playing seats.
    "rollouts": frozenset({"units", "sandbox", "ratings", "agents", "engine", "errors", "results"}),
    "match": frozenset(
        {
            "rollouts",
            "units",
            "sandbox",
            "ratings",
            "registry",
            "agents",
            "engine",
            "keys",
            "errors",
            "names",
            "results",
        }
    ),
    # The bot skeletons of new-bot: templates, and the names and programs they must avoid.
    "skeletons": frozenset({"sandbox", "agents", "errors"}),
    "learn": frozenset(
        {"envs", "match", "ratings", "agents", "engine", "keys", "errors", "lazy", "results"}
    ),
    "tournament": frozenset(
        {
            "files",
            "lazy",
            "units",
            "sandbox",
            "ratings",
            "registry",
            "rundir",
            "agents",
            "engine",
            "keys",
            "errors",
            "names",
            "results",
        }
    ),
    # Local best response: it plays a bot as a match seats it, with the environments'
    # vectorised hand values and discrete actions.
    "exploit": frozenset(
        {
            "envs",
            "match",
            "sandbox",
            "ratings",
            "agents",
            "engine",
            "keys",
            "errors",
            "frozen",
            "results",
        }
    ),
    # Above the tournament: it reads what events wrote, and its luck study plays a classic
    # freezeout and a duplicate match of the same field.
    "leaderboard": frozenset(
        {
            "files",
            "tournament",
            "match",
            "units",
            "sandbox",
            "ratings",
            "registry",
            "rundir",
            "agents",
            "engine",
            "keys",
            "errors",
            "progress",
            "results",
            "text",
        }
    ),
    "runner": frozenset(
        {
            "files",
            "lazy",
            "rollouts",
            "tournament",
            "units",
            "sandbox",
            "ratings",
            "registry",
            "rundir",
            "agents",
            "engine",
            "keys",
            "errors",
            "names",
            "progress",
            "results",
        }
    ),
    "commands": frozenset(
        {
            "skeletons",
            "files",
            "exploit",
            "runner",
            "tournament",
            "leaderboard",
            "learn",
            "match",
            "envs",
            "units",
            "sandbox",
            "ratings",
            "registry",
            "rundir",
            "agents",
            "engine",
            "keys",
            "errors",
            "names",
            "progress",
            "results",
            "text",
        }
    ),
    # The competition server: its routes call the commands' own functions (submit), the
    # runner's executors, the match, the ratings and the published pages.
    "server": frozenset(
        {
            "files",
            "commands",
            "runner",
            "tournament",
            "leaderboard",
            "match",
            "units",
            "sandbox",
            "ratings",
            "registry",
            "rundir",
            "agents",
            "engine",
            "keys",
            "errors",
            "names",
            "progress",
            "results",
            "text",
        }
    ),
    "cli": frozenset({"commands", "server"}),
    # The package itself: ``__version__`` and the lazily loaded public names.
    "": frozenset({"agents", "engine", "errors", "lazy", "match", "results"}),
}

# Single module pairs allowed across the table, each with the reason it is tolerated and
# the fix that lets the entry go. None is left: keep it so.
EXCEPTIONS: dict[tuple[str, str], str] = {}

# What the built-in bots in agents/ may use: the bot API, and the learner (the `learned`
# bot plays a trained policy). They are loaded by dp_arena.agents, so anything more would
# be a hidden dependency of the agent layer.
BUILTIN_BOTS_ALLOWED = frozenset({"agents", "engine", "learn"})

# Third-party packages each light part must never load (checked in a fresh interpreter).
HEAVY = ("numpy", "ray", "pettingzoo", "gymnasium")
LIGHT_MODULES = (
    "dp_arena",
    "dp_arena.cli",  # `dp-arena --help` starts at once
    "dp_arena.engine",
    "dp_arena.agents",
    "dp_arena.registry",
    "dp_arena.sandbox",
    "dp_arena.sandbox.bot.runner",  # the host of every sandboxed Python bot
    "dp_arena.match",
    "dp_arena.units",  # the unit of work, which every match plays through
)


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _part(module: str) -> str:
    """``dp_arena.engine.state`` -> ``engine``; ``dp_arena`` -> ``""``."""
    return module.split(".")[1] if "." in module else ""


def _imports(path: Path, module: str) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every dp_arena import in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            for alias in node.names:
                # ``from dp_arena import engine`` imports the subpackage, not the root.
                candidate = f"{source}.{alias.name}"
                as_path = PACKAGE.parent.joinpath(*candidate.split("."))
                is_module = as_path.is_dir() or as_path.with_suffix(".py").is_file()
                yield node.lineno, candidate if is_module else source
        elif isinstance(node, ast.Call) and node.args:
            function = node.func
            name = function.attr if isinstance(function, ast.Attribute) else None
            name = function.id if isinstance(function, ast.Name) else name
            if name not in ("import_module", "__import__"):
                continue
            argument = node.args[0]
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                yield node.lineno, argument.value
            elif (
                isinstance(argument, ast.JoinedStr)
                and argument.values
                and isinstance(argument.values[0], ast.Constant)
            ):
                # f"dp_arena.commands.{name}": the literal prefix names the part.
                yield node.lineno, str(argument.values[0].value).rstrip(".")


def _package_files() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


@functools.cache
def _violations() -> tuple[list[str], set[tuple[str, str]]]:
    problems: list[str] = []
    used_exceptions: set[tuple[str, str]] = set()
    for path in _package_files():
        module = _module_name(path, PACKAGE)
        source_part = _part(module)
        if source_part not in ALLOWED:
            problems.append(f"{module}: the part {source_part!r} is not in the ALLOWED table")
            continue
        try:
            imports = sorted(set(_imports(path, module)))  # one entry per imported module
        except SyntaxError as error:
            problems.append(f"{module}: cannot be parsed: {error}")
            continue
        for line, target in imports:
            if target != "dp_arena" and not target.startswith("dp_arena."):
                continue
            target_part = _part(target)
            # Importing the package itself (``__version__``, ``__file__``) is always fine: it
            # is initialised before any submodule and imports nothing when it loads.
            if target == "dp_arena" or target_part == source_part:
                continue
            if target_part in ALLOWED[source_part]:
                continue
            pair = next(
                (
                    (importer, imported)
                    for importer, imported in EXCEPTIONS
                    if importer == module and (target + ".").startswith(imported + ".")
                ),
                None,
            )
            if pair is not None:
                used_exceptions.add(pair)
                continue
            where = f"{path.relative_to(REPO)}:{line}"
            problems.append(
                f"{where}: {module} imports {target}, but {source_part or 'dp_arena'} may"
                f" import only {sorted(ALLOWED[source_part])}"
            )
    return problems, used_exceptions


def test_the_allowed_table_has_no_cycle() -> None:
    visiting: list[str] = []
    done: set[str] = set()

    def visit(part: str) -> None:
        assert part not in visiting, f"the ALLOWED table has a cycle: {[*visiting, part]}"
        if part in done:
            return
        visiting.append(part)
        for lower in ALLOWED[part]:
            assert lower in ALLOWED, f"{part!r} allows {lower!r}, which is not in the table"
            visit(lower)
        visiting.pop()
        done.add(part)

    for part in ALLOWED:
        visit(part)


def test_the_table_names_every_part_of_the_package() -> None:
    parts = {_part(_module_name(path, PACKAGE)) for path in _package_files()}
    assert parts == set(ALLOWED), "add new parts to ALLOWED (and docs/architecture.md)"


def test_every_import_points_down() -> None:
    problems, _ = _violations()
    assert problems == [], "\n".join(problems)


def test_every_exception_is_still_needed() -> None:
    _, used = _violations()
    stale = sorted(set(EXCEPTIONS) - used)
    assert stale == [], f"these imports are gone: remove them from EXCEPTIONS: {stale}"


# Inside the tournament: each family of formats is a subpackage of its own
# (dp_arena.tournament.regular, .short, ...); the top-level modules are the machinery they
# share. The registry names every format's module as text, "module:attribute".
TOURNAMENT = "dp_arena.tournament"
REGISTRY = "dp_arena.tournament.formats"


def test_only_the_servers_command_line_imports_a_command() -> None:
    """The server calls the core the commands call, never a command: only its own
    command line (``dp-arena serve`` and friends, ``server/cli*.py``) may reuse one."""
    found = [
        f"{path.relative_to(REPO)}:{line}: {target}"
        for path in _package_files()
        if _part(_module_name(path, PACKAGE)) == "server" and not path.name.startswith("cli")
        for line, target in _imports(path, _module_name(path, PACKAGE))
        if _part(target) == "commands"
    ]
    assert found == []


def _tournament_modules() -> dict[str, Path]:
    modules = {_module_name(path, PACKAGE): path for path in _package_files()}
    return {name: path for name, path in modules.items() if _family(name) is not None}


def _family(module: str) -> str | None:
    """``"regular"`` for a module of the family dp_arena.tournament.regular, ``""`` for the
    shared machinery (a top-level module of the tournament, or the package itself),
    ``None`` outside the tournament."""
    if module != TOURNAMENT and not module.startswith(TOURNAMENT + "."):
        return None
    rest = module.removeprefix(TOURNAMENT).removeprefix(".").split(".")
    return rest[0] if rest[0] and (PACKAGE / "tournament" / rest[0]).is_dir() else ""


def _registered() -> dict[str, str]:
    """Each format's name and the module the registry names for it."""
    from dp_arena.tournament.formats import FORMATS

    return {name: target.split(":")[0] for name, target in FORMATS.items()}


@functools.cache
def _tournament_graph() -> dict[str, frozenset[str]]:
    """Every tournament module and the tournament modules it imports, however (the
    registry's named modules included: it imports them when their format is asked for)."""
    modules = _tournament_modules()
    graph: dict[str, frozenset[str]] = {}
    for module, path in modules.items():
        targets = set()
        for _, target in _imports(path, module):
            while target and target not in modules:  # an imported name: its module
                target = target.rpartition(".")[0]
            if target and target != module:
                targets.add(target)
        if module == REGISTRY:
            targets |= set(_registered().values())
        graph[module] = frozenset(targets)
    return graph


def test_a_format_imports_shared_machinery_and_its_own_family_only() -> None:
    """A format never imports another family, nor the tournament package's public surface,
    nor the registry or what reaches it (the event driver, the config reader): those import
    the formats."""
    graph = _tournament_graph()
    reaches_registry = {REGISTRY}
    while True:
        more = {module for module, targets in graph.items() if targets & reaches_registry}
        if more <= reaches_registry:
            break
        reaches_registry |= more
    modules = _tournament_modules()
    problems = []
    for module, path in sorted(modules.items()):
        family = _family(module)
        if not family:
            continue
        for line, target in sorted(set(_imports(path, module))):
            target_family = _family(target)
            if target_family is None or target_family == family:
                continue
            where = f"{path.relative_to(REPO)}:{line}: {module} imports {target}"
            while target not in modules:  # an imported name: its module
                target = target.rpartition(".")[0]
            if target_family:
                problems.append(f"{where}, a module of another family of formats")
            elif target == TOURNAMENT:
                problems.append(f"{where}, the package's public surface: import its module")
            elif target in reaches_registry:
                problems.append(f"{where}, which reaches the registry of formats")
    assert problems == [], "\n".join(problems)


def test_shared_machinery_reaches_a_format_only_through_the_registry() -> None:
    problems = []
    for module, path in sorted(_tournament_modules().items()):
        if _family(module) != "":
            continue
        for line, target in sorted(set(_imports(path, module))):
            if _family(target):
                problems.append(f"{path.relative_to(REPO)}:{line}: {module} imports {target}")
    assert problems == [], "\n".join(problems)


def test_the_registry_names_a_module_of_each_family_and_only_those() -> None:
    from dp_arena.tournament.formats import get_format

    modules = _tournament_modules()
    families = {_family(module) for module in modules} - {""}
    registered = _registered()
    assert all(module in modules and _family(module) for module in registered.values())
    assert {_family(module) for module in registered.values()} == families
    assert all(get_format(name).name == name for name in registered)


def _assert_no_cycle(graph: Mapping[str, Iterable[str]]) -> None:
    """Fail naming the cycle if ``graph`` (module -> the modules it imports) has one."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        assert module not in path, f"an import cycle: {' -> '.join([*path, module])}"
        if module in done:
            return
        for target in sorted(graph[module]):
            visit(target, [*path, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


def test_the_tournament_has_no_import_cycle() -> None:
    _assert_no_cycle(_tournament_graph())


# Inside the sandbox: three wings (subpackages) and, at the top, the modules both sides of
# the pipe use (the protocol, the limits) and the package's face (its lazy public names).
# The bot side runs inside every sandbox and must never load the dealer's side.
SANDBOX = "dp_arena.sandbox"
SANDBOX_ROOMS: dict[str, frozenset[str]] = {
    "face": frozenset({"dealer", "confinement", "shared"}),  # its names' homes, typed
    "dealer": frozenset({"confinement", "shared"}),  # seats; they start confined processes
    "confinement": frozenset({"shared"}),  # what a bot may see and do
    "bot": frozenset({"shared"}),  # what runs inside the sandbox
    "shared": frozenset(),  # the pipe protocol and the limits
}
# The one module of another wing the bot side imports: the syscall filter, which each
# seat forked from a template installs on itself. It imports nothing of the sandbox.
BOT_SIDE_MAY_IMPORT = frozenset({"dp_arena.sandbox.confinement.seccomp"})


def _room(package: str, module: str) -> str | None:
    """The room of ``module`` in ``package`` (``"dp_arena.sandbox"``, ``"dp_arena.envs"``):
    its wing (``"dealer"`` for dp_arena.sandbox.dealer.seats), ``"shared"`` for a
    top-level module, unless :data:`TOP_ROOMS` names it, ``"face"`` for the package itself,
    ``None`` outside it."""
    if module == package:
        return "face"
    if not module.startswith(package + "."):
        return None
    first = module.removeprefix(package + ".").split(".")[0]
    if f"{package}.{first}" in TOP_ROOMS:
        return TOP_ROOMS[f"{package}.{first}"]
    return first if PACKAGE.joinpath(*package.split(".")[1:], first).is_dir() else "shared"


def _modules_in(package: str) -> dict[str, Path]:
    modules = {_module_name(path, PACKAGE): path for path in _package_files()}
    return {name: path for name, path in modules.items() if _room(package, name) is not None}


def _imports_within(package: str) -> Iterator[tuple[str, Path, int, str]]:
    """(module, its file, line, imported module) for every import inside ``package`` of
    one of its modules, an imported name taken as its module."""
    modules = _modules_in(package)
    for module, path in sorted(modules.items()):
        for line, target in sorted(set(_imports(path, module))):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != module and _room(package, target) is not None:
                yield module, path, line, target


def _wings_on_disk(package: str) -> set[str]:
    folder = PACKAGE.joinpath(*package.split(".")[1:])
    return {path.name for path in folder.iterdir() if (path / "__init__.py").is_file()}


def _crossings(
    package: str, rooms: Mapping[str, frozenset[str]], excused: frozenset[str] = frozenset()
) -> list[str]:
    """Every import inside ``package`` from a room to one its line in ``rooms`` does not
    allow (a wing may always import its own modules), but for the modules ``excused``."""
    problems = []
    for module, path, line, target in _imports_within(package):
        room, target_room = _room(package, module), _room(package, target)
        assert room is not None and target_room is not None
        if target_room == room and room != "shared":
            continue
        if target_room in rooms[room] or target in excused:
            continue
        problems.append(
            f"{path.relative_to(REPO)}:{line}: {module} ({room}) imports {target} ({target_room})"
        )
    return problems


@functools.cache
def _type_checking_lines(path: Path) -> set[int]:
    """The lines of a file's ``if TYPE_CHECKING:`` blocks: imports for annotations alone."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return {
        inner.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
        for statement in node.body
        for inner in ast.walk(statement)
        if hasattr(inner, "lineno")
    }


def _import_graph(package: str, *, runtime: bool = False) -> dict[str, set[str]]:
    """Each module's imports inside ``package``; with ``runtime``, only those that run
    (not those for annotations alone)."""
    graph: dict[str, set[str]] = {module: set() for module in _modules_in(package)}
    for module, path, line, target in _imports_within(package):
        if not (runtime and line in _type_checking_lines(path)):
            graph[module].add(target)
    return graph


def test_the_sandbox_rooms_are_the_wings_on_disk() -> None:
    assert _wings_on_disk(SANDBOX) | {"face", "shared"} == set(SANDBOX_ROOMS)


def test_each_wing_of_the_sandbox_imports_only_the_rooms_below_it() -> None:
    problems = [
        problem
        for problem in _crossings(SANDBOX, SANDBOX_ROOMS)
        if " (bot) imports " not in problem or problem.split()[-2] not in BOT_SIDE_MAY_IMPORT
    ]
    assert problems == [], "\n".join(problems)


def test_the_bot_side_imports_nothing_of_the_dealers_side() -> None:
    """The bot side may import the syscall filter alone of another wing, and the filter
    imports nothing of the sandbox, so nothing of the dealer's side comes with it."""
    bot_side = [
        (module, target)
        for module, _, _, target in _imports_within(SANDBOX)
        if _room(SANDBOX, module) == "bot" and _room(SANDBOX, target) not in ("bot", "shared")
    ]
    assert {target for _, target in bot_side} <= BOT_SIDE_MAY_IMPORT
    for allowed in BOT_SIDE_MAY_IMPORT:
        assert [
            target for module, _, _, target in _imports_within(SANDBOX) if module == allowed
        ] == []


def test_the_sandbox_has_no_import_cycle() -> None:
    _assert_no_cycle(_import_graph(SANDBOX))


# Inside the environments: three wings over one encoding. The shared modules at the top
# (the encoding, the discrete actions, the deals of a session, the opponents) import no
# wing; the PettingZoo wing and the batch never import each other; the Gymnasium wing
# stands over both (its single env wraps one AEC table, its vector env steps the batch).
# The versioned names (capped_holdem_v0, duplicate_holdem_v0) are the AEC wing's entries.
ENVS = "dp_arena.envs"
ENVS_ROOMS: dict[str, frozenset[str]] = {
    "face": frozenset({"gym", "names", "shared"}),  # its names' homes
    "gym": frozenset({"aec", "batch", "names", "shared"}),  # Gymnasium: single and vector
    "names": frozenset({"aec"}),  # the environments' versioned names
    "aec": frozenset({"shared"}),  # PettingZoo's AEC environments, RLlib's wrapper
    "batch": frozenset({"shared"}),  # the rules, cards, encoding, players as arrays
    "shared": frozenset({"shared"}),  # the encoding and what every wing uses
}
TOP_ROOMS = {f"{ENVS}.capped_holdem_v0": "names", f"{ENVS}.duplicate_holdem_v0": "names"}


def test_the_environments_rooms_are_the_wings_on_disk() -> None:
    assert _wings_on_disk(ENVS) | {"face", "names", "shared"} == set(ENVS_ROOMS)
    assert all(_modules_in(ENVS).get(module) for module in TOP_ROOMS)


def test_each_wing_of_the_environments_imports_only_what_its_line_allows() -> None:
    problems = _crossings(ENVS, ENVS_ROOMS)
    assert problems == [], "\n".join(problems)


def test_the_environments_have_no_import_cycle() -> None:
    """No cycle of imports that run. (The batch's players and its tables name each other's
    classes in annotations: the players only under ``TYPE_CHECKING``.)"""
    _assert_no_cycle(_import_graph(ENVS, runtime=True))
    rooms = {room: allowed - {room} for room, allowed in ENVS_ROOMS.items()}
    _assert_no_cycle(rooms)


def test_the_rooms_checker_sees_a_crossing() -> None:
    """The checker on an import the rule forbids: the batch importing the AEC wing."""
    rooms = {**ENVS_ROOMS, "batch": frozenset()}  # the batch may not even use the shared
    crossings = _crossings(ENVS, rooms)
    assert crossings and all(" (batch) imports " in crossing for crossing in crossings)
    assert any(crossing.endswith("dp_arena.envs.encoding (shared)") for crossing in crossings)


def test_builtin_bots_use_only_the_bot_api_and_the_learner() -> None:
    problems = []
    for path in sorted((REPO / "agents").glob("*.py")):
        for line, target in _imports(path, f"agents.{path.stem}"):
            if target.startswith("dp_arena.") and _part(target) not in BUILTIN_BOTS_ALLOWED:
                problems.append(f"agents/{path.name}:{line}: imports {target}")
    assert problems == [], "\n".join(problems)


def test_the_scanner_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The checker itself, on a file with each import form it must catch."""
    source = tmp_path / "probe.py"
    source.write_text(
        "import dp_arena.engine.state\n"
        "from dp_arena import agents\n"
        "from dp_arena import __version__\n"
        "from ..results import Fault\n"
        "from . import seat\n"
        "import importlib\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from dp_arena.rundir import store\n"
        "def later(name):\n"
        "    from dp_arena.tournament.units import TableUnit\n"
        "    importlib.import_module('dp_arena.sandbox')\n"
        "    return importlib.import_module(f'dp_arena.commands.{name}')\n",
        encoding="utf-8",
    )
    found = sorted(target for _, target in _imports(source, "dp_arena.agents.probe"))
    assert found == sorted(
        [
            "dp_arena.engine.state",
            "dp_arena.agents",
            "dp_arena",
            "dp_arena.results",
            "dp_arena.agents.seat",
            "importlib",
            "typing",
            "dp_arena.rundir.store",
            "dp_arena.tournament.units",
            "dp_arena.sandbox",
            "dp_arena.commands",
        ]
    )


def test_light_layers_never_load_heavy_packages() -> None:
    # One fresh interpreter imports the light modules in turn and reports what each one
    # added: a module imported after clean ones is blamed for exactly what it loaded.
    code = (
        "import importlib, sys\n"
        f"for module in {LIGHT_MODULES!r}:\n"
        "    importlib.import_module(module)\n"
        "    heavy = sorted(m for m in sys.modules\n"
        f"                   if m.split('.')[0] in {HEAVY!r} or m.startswith('dp_arena.envs'))\n"
        "    print(module, heavy)\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout
    assert output.splitlines() == [f"{module} []" for module in LIGHT_MODULES]
