"""Fingerprints that tie a run directory to what produced it: unit ids, the code version,
bots' content hashes, and the event config as plain data.

- A **unit id** is a SHA-256 of the table unit's canonical JSON (everything that decides
  its result: rules, seats, specs, chips, seeds; not the folder its bots' logs go to),
  so the same unit has the same id in every process, on every machine and after a
  resume.
- The **code version** is a SHA-256 over the source of the installed ``dp_arena``
  package (every ``.py`` file, by relative path), so a resume refuses to mix results of
  two versions of the engine.
- A **bot's content hash** covers the files it is made of: for a Python file, the file
  and the modules of its folder it imports (:func:`~dp_arena.agents.spec.local_imports`;
  two bots in one folder hash apart), or its whole folder when that is a bot folder (a
  ``bot.toml`` beside it: the bot sees all of it, data included), as for a bot folder
  named as such; for a built-in, its file, its imports and the built-in folder's data (the
  learned bot's policy); the package or module for ``package.module:Class``; the
  registry's own hash for a submitted bot; a command line's words and the files it
  names. A bot whose files are not there has no hash (``missing:...``).

Nothing here uses :func:`hash`, clocks or randomness.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from dp_arena.agents import SpecKind, parse_spec
from dp_arena.agents.locate import locate_module
from dp_arena.agents.spec import local_imports
from dp_arena.errors import AgentError, DPArenaError, RunError
from dp_arena.names import MANIFEST, REGISTRY_PREFIX
from dp_arena.results import to_json
from dp_arena.tournament.code import entrant_code
from dp_arena.tournament.config import Entrant, EventConfig, without_key
from dp_arena.units import TableUnit

__all__ = [
    "bot_codes",
    "bot_fingerprints",
    "canonical_json",
    "code_version",
    "config_from_json",
    "config_to_json",
    "file_imports",
    "folder_hash",
    "legacy_fingerprint",
    "package_folder",
    "unit_id",
]

# A bot folder is hashed file by file in path order; these bound the work when a bot
# file sits in a big folder (a home directory, say): the first files in path order count.
MAX_FILES = 5000
MAX_BYTES = 512 * 1024 * 1024
_SKIPPED_DIRECTORIES = {"__pycache__", ".git", ".mypy_cache", ".pytest_cache", ".ruff_cache"}


def canonical_json(data: Any) -> str:
    """One spelling of JSON data: sorted keys, no spaces, UTF-8 kept as is."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def unit_id(unit: TableUnit) -> str:
    """The content hash of a table unit (hex SHA-256 of its canonical JSON)."""
    data = unit.to_json()
    # Where logs go does not change the result, and a run directory may be moved.
    data.pop("log_dir", None)
    return hashlib.sha256(f"dp-arena/unit/v1:{canonical_json(data)}".encode()).hexdigest()


def _source_files(root: Path) -> list[Path]:
    return sorted(
        (path for path in root.rglob("*.py") if "__pycache__" not in path.parts),
        key=lambda path: path.relative_to(root).as_posix(),
    )


def package_folder() -> str:
    """Where the ``dp_arena`` package this process runs lives."""
    import dp_arena

    return str(Path(dp_arena.__file__).resolve().parent)


def code_version() -> str:
    """SHA-256 over the ``dp_arena`` package's Python source, as it is on disk now."""
    root = Path(package_folder())
    digest = hashlib.sha256(b"dp-arena/code/v1\n")
    for path in _source_files(root):
        content = hashlib.sha256(path.read_bytes()).hexdigest()
        digest.update(f"{path.relative_to(root).as_posix()}\0{content}\n".encode())
    return digest.hexdigest()


def _walk(folder: Path) -> Iterator[Path]:
    """Regular files under ``folder`` in path order, skipping caches and hidden folders."""
    for path in sorted(folder.iterdir(), key=lambda item: item.name):
        if path.is_symlink():
            continue
        if path.is_dir():
            if path.name in _SKIPPED_DIRECTORIES or path.name.startswith("."):
                continue
            yield from _walk(path)
        elif path.is_file():
            yield path


def folder_hash(folder: Path) -> str:
    """SHA-256 over a folder's files (relative path and content), in path order."""
    digest = hashlib.sha256(b"dp-arena/folder/v1\n")
    size = 0
    for files, path in enumerate(_walk(folder), start=1):
        size += path.stat().st_size
        if files > MAX_FILES or size > MAX_BYTES:
            digest.update(b"(truncated)\n")
            break
        content = hashlib.sha256(path.read_bytes()).hexdigest()
        digest.update(f"{path.relative_to(folder).as_posix()}\0{content}\n".encode())
    return digest.hexdigest()


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _bot_fingerprint(spec_text: str) -> str:
    """The content hash of the bot a resolved spec names; ``missing:...`` when its files
    cannot be found (which a resume reports as a change)."""
    if spec_text.startswith(REGISTRY_PREFIX):
        try:
            from dp_arena.registry import Registry

            registry, reference = Registry.for_spec(spec_text)
            stored = registry.resolve(reference)
        except (ImportError, AgentError, OSError, ValueError) as error:
            return f"missing:{type(error).__name__}"
        return f"{REGISTRY_PREFIX}{stored.sha256}"
    try:
        spec = parse_spec(spec_text)
    except AgentError:
        return "missing:spec"
    if spec.kind is SpecKind.FOLDER:
        folder = Path(str(spec.target)).expanduser()
        if not (folder / MANIFEST).is_file():
            return "missing:folder"
        return f"folder:{folder_hash(folder.resolve())}"
    if spec.kind in (SpecKind.BUILTIN, SpecKind.FILE):
        path = Path(str(spec.target)).expanduser()
        if not path.is_file():
            return "missing:file"
        path = path.resolve()
        if spec.kind is SpecKind.FILE and (path.parent / MANIFEST).is_file():
            return f"folder:{folder_hash(path.parent)}"  # a bot folder: all of it is the bot's
        files = [path, *local_imports(path)]
        if spec.kind is SpecKind.BUILTIN:  # and the data of the built-ins (a policy's weights)
            files += sorted(item for item in path.parent.iterdir() if _is_data(item))
        return f"{spec.kind.value}:{_files_hash(path.parent, files)}"
    if spec.kind is SpecKind.MODULE:
        try:  # by path: importing it would run the bot's code here
            found = locate_module(str(spec.target))
        except AgentError:
            return "missing:module"
        if found.top.is_dir():
            return f"package:{folder_hash(found.top)}"
        return f"module:{_file_hash(found.top)}"
    # A command line: its words and the files it names (relative to the working directory,
    # where the sandbox runs it), each with its content; the program itself when it is a
    # file. A word that names a file of the bot's that is not there leaves it no hash.
    parts = [f"{spec.kind.value}\0{canonical_json(list(spec.target))}"]
    for index, argument in enumerate(spec.target):
        path = Path(argument).expanduser()
        if path.is_file():
            parts.append(f"{argument}\0{_file_hash(path)}")
        elif _names_a_file(argument, first=index == 0):
            return "missing:file"
    return "command:" + hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _is_data(path: Path) -> bool:
    return path.is_file() and path.suffix not in (".py", ".pyc") and not path.name.startswith(".")


def _names_a_file(argument: str, *, first: bool) -> bool:
    """Whether a command line's word is written as a file of the bot's (a path with a
    folder in it, ``./bot``, or a script's name, ``bot.js``), not an option or a word."""
    if argument.startswith("-") or "{" in argument:
        return False
    if "/" in argument:
        return True
    return not first and Path(argument).suffix in SCRIPT_SUFFIXES


# Script files a command line names by their bare names (``node bot.js``, ``perl bot.pl``).
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".pl", ".rb", ".lua", ".sh", ".jar", ".R")


def _files_hash(folder: Path, files: Iterable[Path]) -> str:
    """SHA-256 over files (each one's path relative to ``folder``, and its content)."""
    digest = hashlib.sha256(b"dp-arena/files/v1\n")
    for path in files:
        content = hashlib.sha256(path.read_bytes()).hexdigest()
        digest.update(f"{path.relative_to(folder).as_posix()}\0{content}\n".encode())
    return digest.hexdigest()


def legacy_fingerprint(spec_text: str) -> str | None:
    """The content hash runs recorded before a file bot's hash was its file's: its whole
    folder's, for a Python file or a built-in (``None`` for anything else). A replay of
    such a run checks its bots against it."""
    try:
        spec = parse_spec(spec_text)
    except AgentError:
        return None
    if spec.kind not in (SpecKind.BUILTIN, SpecKind.FILE):
        return None
    path = Path(str(spec.target)).expanduser()
    return f"folder:{folder_hash(path.resolve().parent)}" if path.is_file() else None


def file_imports(spec_text: str) -> list[str] | None:
    """What a lone Python file bot imports from its folder, by path in that folder (the
    files its hash covers beside its own); ``None`` for any other bot."""
    try:
        spec = parse_spec(spec_text)
    except AgentError:
        return None
    path = Path(str(spec.target)).expanduser()
    if spec.kind is not SpecKind.FILE or not path.is_file():
        return None
    path = path.resolve()
    if (path.parent / MANIFEST).is_file():
        return None
    return [item.relative_to(path.parent).as_posix() for item in local_imports(path)]


def bot_fingerprints(entrants: Iterable[Entrant]) -> dict[str, str]:
    """Resolved spec -> content hash, for every distinct spec among ``entrants``."""
    specs = sorted({entrant.resolved for entrant in entrants})
    return {spec: _bot_fingerprint(spec) for spec in specs}


def bot_codes(
    entrants: Iterable[Entrant], fingerprints: Mapping[str, str] | None = None
) -> dict[str, dict[str, Any]]:
    """player -> the ``code`` object ``results.json`` gives the entrant
    (:func:`~dp_arena.tournament.code.entrant_code`): its path-free name, its registry
    version and the content hash of :func:`bot_fingerprints` (given, or computed; ``None``
    when its files cannot be found)."""
    entrants = list(entrants)
    if fingerprints is None:
        fingerprints = bot_fingerprints(entrants)
    versions: dict[str, int | None] = {}
    codes = {}
    for entrant in entrants:
        fingerprint = fingerprints[entrant.resolved]
        kind, _, digest = fingerprint.partition(":")
        version = None
        if entrant.resolved.startswith(REGISTRY_PREFIX):
            if entrant.resolved not in versions:
                versions[entrant.resolved] = _registry_version(entrant.resolved)
            version = versions[entrant.resolved]
        codes[entrant.player] = entrant_code(
            entrant.resolved,
            sha256=None if kind == "missing" else digest,
            version=version,
            imports=file_imports(entrant.resolved) if kind == "file" else None,
        )
    return codes


def _registry_version(spec_text: str) -> int | None:
    try:
        from dp_arena.registry import Registry

        registry, reference = Registry.for_spec(spec_text)
        return registry.resolve(reference).version
    except (ImportError, DPArenaError, OSError, ValueError):
        return None


def config_to_json(config: EventConfig) -> dict[str, Any]:
    """The config as JSON data (for the store), always in its keyless form: a secret key
    never reaches the store. :func:`config_from_json` reads it back."""
    data: dict[str, Any] = to_json(without_key(config))
    return data


def config_from_json(data: dict[str, Any]) -> EventConfig:
    """The :class:`EventConfig` that :func:`config_to_json` wrote."""
    try:
        return EventConfig(
            name=data["name"],
            format=data["format"],
            seed=data["seed"],
            entrants=tuple(
                Entrant(item["player"], item["spec"], item["trusted"], item["resolved"])
                for item in data["entrants"]
            ),
            buy_in_cents=data["buy_in_cents"],
            fee_cents=data["fee_cents"],
            cap=data["cap"],
            small_blind=data["small_blind"],
            big_blind=data["big_blind"],
            deals=tuple((seats, deals) for seats, deals in data["deals"]),
            round_robin_deals=data["round_robin_deals"],
            max_faults=data["max_faults"],
            limits=tuple((name, value) for name, value in data["limits"]),
            options=tuple((name, value) for name, value in data["options"]),
            source=data["source"],
            secret=False,
            field_from=tuple(data.get("field_from", ())),
            field_count=data.get("field_count", 0),
            absent=tuple((player, reason) for player, reason in data.get("absent", ())),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise RunError(
            f"the stored config is malformed ({type(error).__name__}: {error})"
        ) from None
