"""Checking a config's entrants: the ``[[entrants]]`` tables and the ``[field]`` of
built-in bots drawn with the event's key, every player's name, and every bot's spec
resolved as the run will seat it (a file with its class, a program found, a registry bot
pinned to the version found now), every problem reported.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dp_arena.agents import BUILTINS, AgentSpec, SpecKind, parse_spec
from dp_arena.agents.spec import class_problem, missing_file, module_problem
from dp_arena.errors import AgentError
from dp_arena.tournament.bounds import MAX_ENTRANTS
from dp_arena.tournament.checker import ConfigChecker, type_name
from dp_arena.tournament.config import Entrant, Problem, draw_field

__all__ = ["DEFAULT_FIELD", "check_entrants", "registry_root"]

DEFAULT_FIELD = ("random", "calling-station", "aggressive", "tag", "equity")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_entrants(
    checker: ConfigChecker, data: Mapping[str, Any], base: Path, seed: int | None
) -> tuple[list[Entrant], tuple[str, ...], int]:
    """The entrants (the listed ones, then the drawn field), the field's pool and size."""
    entrants = _check_listed(checker, data, base)
    drawn, field_from, field_count = _check_field(checker, data, base, seed, len(entrants))
    entrants += drawn
    _check_names(checker, entrants)
    if not entrants and not checker.problems:
        checker.add("entrants", "no entrants: add [[entrants]] tables or a [field]")
    return entrants, field_from, field_count


def _check_listed(checker: ConfigChecker, data: Mapping[str, Any], base: Path) -> list[Entrant]:
    """The ``[[entrants]]`` tables, in order (those refused left out)."""
    entrants: list[Entrant] = []
    listed = data.get("entrants", [])
    if not isinstance(listed, list):
        checker.add(
            "entrants", f"must be an array of tables ([[entrants]]), not {type_name(listed)}"
        )
        listed = []
    if len(listed) > MAX_ENTRANTS:
        checker.add(
            "entrants", f"{len(listed):_} [[entrants]]; an event has at most {MAX_ENTRANTS:_}"
        )
        listed = []
    for index, item in enumerate(listed):
        entrant = _check_entrant(checker, f"entrants[{index}]", item, base, entrants)
        if entrant is not None:
            entrants.append(entrant)
    return entrants


def _check_entrant(
    checker: ConfigChecker, where: str, item: object, base: Path, earlier: list[Entrant]
) -> Entrant | None:
    """One ``[[entrants]]`` table; unnamed, it is named after its bot (numbered when an
    ``earlier`` entrant has the name)."""
    if not isinstance(item, Mapping):
        checker.add(where, f"must be a table with agent (and name, trusted), not {type_name(item)}")
        return None
    checker.keys(where, item, ("name", "agent", "trusted"))
    agent_text = checker.string(f"{where}.agent", item.get("agent"), required=True)
    name = checker.string(f"{where}.name", item.get("name"))
    trusted = item.get("trusted")
    if trusted is not None and not isinstance(trusted, bool):
        checker.add(f"{where}.trusted", f"must be true or false, not {trusted!r}")
        trusted = None
    if agent_text is None:
        return None
    # Problems with the bot name the entrant too: "entrants[2].agent (alice): ...".
    label = f"{where}.agent" + (f" ({name})" if name else "")
    resolved = _resolve_spec(checker, label, agent_text, base)
    if resolved is None:
        return None
    spec, resolved_text, missing = resolved
    if name is None:
        name = re.sub(r"[^A-Za-z0-9._-]", "-", spec.name).strip("-.") or "bot"
        taken = {entrant.player for entrant in earlier}
        if name in taken:
            suffix = 2
            while f"{name}-{suffix}" in taken:
                suffix += 1
            name = f"{name}-{suffix}"
    if missing is not None:  # the entrant stays, its bot's problem named with it
        checker.problems.append(Problem(label, missing, player=name))
    is_trusted = spec.kind is SpecKind.BUILTIN if trusted is None else trusted
    return Entrant(name, agent_text, is_trusted, resolved_text)


def _check_field(
    checker: ConfigChecker, data: Mapping[str, Any], base: Path, seed: int | None, listed: int
) -> tuple[list[Entrant], tuple[str, ...], int]:
    """The ``[field]`` of built-in bots drawn after the ``listed`` entrants: the drawn
    entrants, their pool and their number (none when there is no field or it is refused)."""
    field_table = checker.table("field", data.get("field"))
    checker.keys("field", field_table, ("count", "from"))
    if not field_table:
        return [], (), 0
    count = checker.integer(
        "field.count", field_table.get("count"), minimum=1, maximum=MAX_ENTRANTS
    )
    if "count" not in field_table:
        checker.add("field.count", "missing; how many built-in bots to draw")
    pool = field_table.get("from", list(DEFAULT_FIELD))
    names: list[str] = []
    if not isinstance(pool, list) or not pool:
        checker.add(
            "field.from",
            f"must be a non-empty list of built-in names; allowed: {', '.join(BUILTINS)}",
        )
    else:
        for index, builtin in enumerate(pool):
            where = f"field.from[{index}]"
            if builtin not in BUILTINS:
                checker.add(
                    where, f"{builtin!r} is not a built-in bot; allowed: {', '.join(BUILTINS)}"
                )
            elif _resolve_spec(checker, where, builtin, base) is not None:
                names.append(builtin)
        if len(set(pool)) != len(pool):
            checker.add("field.from", "lists a built-in more than once")
    if count is not None and listed + count > MAX_ENTRANTS:
        checker.add(
            "field.count",
            f"{listed:_} [[entrants]] and a field of {count:_} make"
            f" {listed + count:_} entrants; an event has at most {MAX_ENTRANTS:_}",
        )
    elif count is not None and names and len(names) == len(pool):
        return draw_field(count, names, seed), tuple(names), count
    return [], (), 0


def _check_names(checker: ConfigChecker, entrants: list[Entrant]) -> None:
    """Every player name valid and used once."""
    seen: set[str] = set()
    for index, entrant in enumerate(entrants):
        if not _NAME.match(entrant.player):
            checker.add(
                f"entrants[{index}].name",
                f"{entrant.player!r} is not a valid player name"
                " (letters, digits, '.', '_', '-'; at most 64)",
            )
        if entrant.player in seen:
            checker.add(f"entrants[{index}].name", f"{entrant.player!r} is used by another entrant")
        seen.add(entrant.player)


def registry_root(
    checker: ConfigChecker, data: Mapping[str, Any], base: Path, override: str | Path | None
) -> Path | None:
    """``--registry``, else ``[registry] path`` (relative to the config's folder), else
    ``None``: the default registry (:func:`dp_arena.registry.registry_location`)."""
    table = checker.table("registry", data.get("registry"))
    checker.keys("registry", table, ("path",))
    if override is not None:
        return Path(override).expanduser().absolute()
    path = checker.string("registry.path", table.get("path"))
    return None if path is None else (base / Path(path).expanduser()).absolute()


def _resolve_spec(
    checker: ConfigChecker, where: str, text: str, base: Path
) -> tuple[AgentSpec, str, str | None] | None:
    """The spec, as its seats will load it, and why its bot is not there (``None`` when
    it may be); ``None`` alone, with a problem kept, for a spec that is no spec at all."""
    try:
        spec = parse_spec(text)
    except AgentError as error:
        checker.add(where, str(error))
        return None
    if spec.kind is SpecKind.REGISTRY:
        return _resolve_registry(checker, where, spec)
    if spec.kind is SpecKind.BUILTIN:
        if not Path(str(spec.target)).is_file():
            checker.add(where, f"built-in bot {text!r} is not available (no {spec.target})")
            return None
        return spec, text, None
    if spec.kind is SpecKind.FILE:
        path = Path(str(spec.target)).expanduser()
        if not path.is_absolute():
            path = (base / path).resolve()
        resolved = f"{path}:{spec.class_name}"
        if not path.is_file():
            return spec, resolved, missing_file(path, spec.class_name)
        return spec, resolved, class_problem(path, spec)
    if spec.kind is SpecKind.FOLDER:
        from dp_arena.sandbox.dealer.seats import folder_problem

        folder = Path(str(spec.target)).expanduser()
        resolved = f"{folder if folder.is_absolute() else (base / folder).resolve()}/"
        return spec, resolved, folder_problem(resolved)
    if spec.kind is SpecKind.MODULE:
        return spec, text, module_problem(spec)  # by path: nothing of the bot is imported
    program = str(spec.target[0])
    if shutil.which(program) is None and not (base / program).exists():
        return spec, text, f"program {program!r} not found on PATH or next to the config"
    from dp_arena.sandbox.confinement.mounts import program_runtime

    try:  # a program the sandbox may not show the bot is refused now, not at the seat
        program_runtime(program, base)
    except AgentError as error:
        return spec, text, str(error)
    return spec, text, None


def _resolve_registry(
    checker: ConfigChecker, where: str, spec: AgentSpec
) -> tuple[AgentSpec, str, str | None] | None:
    """A registry bot pinned to the version found now, in the registry found now (a bot
    the registry does not hold is the entrant's problem; a registry that is not there,
    the config's)."""
    from dp_arena.errors import SubmissionError
    from dp_arena.registry import Registry, pinned_spec, split_spec

    pinned_root, reference = split_spec(spec.text)
    try:
        registry = Registry.existing(pinned_root or checker.registry)
    except SubmissionError as error:
        checker.add(where, str(error))
        return None
    try:
        stored = registry.resolve(reference)
    except SubmissionError as error:
        return spec, spec.text, str(error)
    return spec, pinned_spec(registry.root, stored), None
