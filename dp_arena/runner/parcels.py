"""Bots that travel with the work: their files go to the Ray workers through Ray itself.

A node of a cluster needs only the same dp-arena: the bots' files need not be there. The
driver packs each bot that lives outside dp-arena once per run into a :class:`Parcel`
(its files, named by their SHA-256, :func:`parcel_hash`) and puts the files in Ray's
object store; every batch of table units carries a small descriptor of the parcels its
seats need (:meth:`Parcel.descriptor`). A worker, before it seats anyone
(:func:`locate`):

- uses the bot's own files where the driver has them when this node has them too, with
  the same content (hashed once per worker process): on one machine, or on nodes that
  share a file system, nothing changes, and the seats are exactly the driver's;
- else takes the copy in this node's cache (``DP_ARENA_BOT_CACHE``, else
  ``dp-arena-bots-UID`` in the temporary folder), kept under the parcel's hash;
- else fetches the files from the object store, unpacks them into a new folder of the
  cache, checks them against the hash and only then renames the folder into place: a
  copy in the cache was always checked, and workers of one node that fetch at once keep
  one of theirs.

What travels: a Python file bot (``file.py:Class``) as its bot folder when a
``bot.toml`` is beside it, else as the file alone (what its sandbox shows it); a bot
folder named as such (``mybot/``) and a registry bot as their folders. Built-ins, and
files of dp-arena's own ``agents`` folder, are part of dp-arena; a module bot
(``package.module:Class``) and a command line outside the registry are software the node
must have installed, so they do not travel. Caches (``__pycache__``) and symbolic links stay behind.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from dp_arena.agents import SpecKind, parse_spec
from dp_arena.agents.spec import AGENTS_DIR
from dp_arena.errors import DPArenaError, RunError
from dp_arena.names import MANIFEST, REGISTRY_PREFIX
from dp_arena.units import Located

__all__ = [
    "CACHE_VARIABLE",
    "Parcel",
    "cache_root",
    "locate",
    "pack",
    "parcel_hash",
]

CACHE_VARIABLE = "DP_ARENA_BOT_CACHE"
# What a parcel may hold (the registry's own submission limits).
MAX_FILES = 2000
MAX_BYTES = 64 * 1024 * 1024

# A bot's file as it travels: its POSIX path in the bot's folder, whether it is
# executable, and its bytes.
File = tuple[str, bool, bytes]


@dataclass(frozen=True, slots=True)
class Parcel:
    """One bot's files and how to seat them from the folder they are unpacked into:
    ``entry`` (``file.py:Class``) for a Python bot, ``command`` for a command bot (an
    ACPC agent's when ``protocol`` is ``acpc``), neither for a bot folder (its
    ``bot.toml`` says).
    ``origin`` is the folder the files came from on the driver; ``whole`` says whether
    they are all of it (else only the files listed); a registry bot's spec is resolved
    in its registry's ``database``, which a node must have too to seat it from there."""

    sha256: str
    origin: str
    whole: bool
    entry: str | None
    command: str | None
    files: tuple[File, ...]
    database: str | None = None  # a registry bot's: its spec is resolved there
    protocol: str = "pipe"

    def descriptor(self, reference: Any) -> dict[str, Any]:
        """What a batch carries: everything but the files, and the object store's
        ``reference`` to them."""
        return {
            "sha256": self.sha256,
            "origin": self.origin,
            "names": None if self.whole else [name for name, _, _ in self.files],
            "entry": self.entry,
            "command": self.command,
            "protocol": self.protocol,
            "database": self.database,
            "files": reference,
        }


def parcel_hash(files: Iterable[File]) -> str:
    """SHA-256 over the files in path order: each one's path, executable bit and the
    SHA-256 of its bytes."""
    digest = hashlib.sha256(b"dp-arena/parcel/v1\n")
    for name, executable, data in sorted(files):
        content = hashlib.sha256(data).hexdigest()
        digest.update(f"{name}\0{'x' if executable else '-'}\0{content}\n".encode())
    return digest.hexdigest()


# -- the driver: packing -----------------------------------------------------------------


def pack(spec: str) -> Parcel | None:
    """The parcel of the bot ``spec`` names, or ``None`` when it does not travel (see
    the module docstring) or cannot be found (its seat reports that, as it would
    serially). Raises :class:`RunError` for a bot too big to travel."""
    try:
        if spec.startswith(REGISTRY_PREFIX):
            from dp_arena.registry import Registry

            registry, reference = Registry.for_spec(spec)
            stored = registry.resolve(reference)
            folder = stored.folder.resolve()
            files = tuple(_read(folder, _walk(folder)))
            return _parcel(
                spec,
                folder,
                True,
                stored.entry,
                stored.command,
                files,
                registry.database,
                stored.protocol,
            )
        parsed = parse_spec(spec)
    except (DPArenaError, OSError, ValueError):
        return None
    if parsed.kind is SpecKind.FOLDER:
        folder = Path(str(parsed.target)).expanduser().resolve()
        if not (folder / MANIFEST).is_file():
            return None
        return _parcel(spec, folder, True, None, None, tuple(_read(folder, _walk(folder))))
    if parsed.kind is not SpecKind.FILE:
        return None
    path = Path(str(parsed.target)).expanduser().resolve()
    folder = path.parent
    if not path.is_file() or folder == AGENTS_DIR.resolve():
        return None
    whole = (folder / MANIFEST).is_file()
    chosen = _walk(folder) if whole else iter([path])
    files = tuple(_read(folder, chosen))
    return _parcel(spec, folder, whole, f"{path.name}:{parsed.class_name}", None, files)


def _parcel(
    spec: str,
    folder: Path,
    whole: bool,
    entry: str | None,
    command: str | None,
    files: tuple[File, ...],
    database: Path | None = None,
    protocol: str = "pipe",
) -> Parcel:
    size = sum(len(data) for _, _, data in files)
    if len(files) > MAX_FILES or size > MAX_BYTES:
        raise RunError(
            f"the bot {spec} is too big to travel to the Ray workers ({len(files)} files,"
            f" {size:,} bytes; at most {MAX_FILES} files and {MAX_BYTES:,} bytes): make it a"
            f" bot folder of its own ({MANIFEST} beside its file) holding only what it needs"
        )
    return Parcel(
        parcel_hash(files),
        str(folder),
        whole,
        entry,
        command,
        files,
        None if database is None else str(database),
        protocol,
    )


def _walk(folder: Path) -> Iterator[Path]:
    """Regular files under ``folder`` in path order, without caches or symbolic links."""
    for path in sorted(folder.iterdir(), key=lambda item: item.name):
        if path.is_symlink():
            continue
        if path.is_dir():
            if path.name != "__pycache__":
                yield from _walk(path)
        elif path.is_file():
            yield path


def _read(folder: Path, paths: Iterable[Path]) -> Iterator[File]:
    for path in paths:
        executable = bool(path.stat().st_mode & 0o111)
        yield path.relative_to(folder).as_posix(), executable, path.read_bytes()


# -- the worker: locating ----------------------------------------------------------------

# (origin, sha256) -> whether this node's files at origin are the parcel's: checked once
# per worker process.
_origins: dict[tuple[str, str], bool] = {}


def locate(parcels: Mapping[str, Mapping[str, Any]], fetch: Callable[[Any], Any]) -> Located:
    """Spec -> how this node seats it, for each spec of ``parcels`` (spec -> descriptor)
    whose files are not at the driver's paths here; ``fetch(reference)`` gets a parcel's
    files from the object store. Raises :class:`RunError` when fetched files do not hash
    to their parcel's hash (nothing of them is kept)."""
    located: dict[str, tuple[str, str | None]] = {}
    for spec, parcel in parcels.items():
        if _origin_matches(parcel):
            continue
        folder = _cached(parcel, fetch)
        if parcel["entry"] is not None:
            located[spec] = (f"{folder / parcel['entry']}", None)
        elif parcel["command"] is not None:
            prefix = "acpc" if parcel.get("protocol") == "acpc" else "cmd"
            located[spec] = (f"{prefix}:{parcel['command']}", str(folder))
        else:  # a bot folder: its bot.toml travelled with it
            located[spec] = (f"{folder}/", None)
    return located


def _origin_matches(parcel: Mapping[str, Any]) -> bool:
    key = (parcel["origin"], parcel["sha256"])
    if key not in _origins:
        origin = Path(parcel["origin"])
        database = parcel.get("database")
        try:
            if database is not None and not Path(database).is_file():
                raise FileNotFoundError(database)
            names = parcel["names"]
            paths = _walk(origin) if names is None else (origin / name for name in names)
            _origins[key] = parcel_hash(_read(origin, paths)) == parcel["sha256"]
        except OSError:
            _origins[key] = False
    return _origins[key]


def cache_root() -> Path:
    """This node's cache of parcels, made owner-only writable; refused when someone else
    owns it or may write to it (they could plant a bot under a hash)."""
    root = Path(
        os.environ.get(CACHE_VARIABLE)
        or Path(tempfile.gettempdir()) / f"dp-arena-bots-{os.getuid()}"
    )
    root.mkdir(mode=0o755, parents=True, exist_ok=True)
    info = root.lstat()
    if (
        not stat.S_ISDIR(info.st_mode)
        or info.st_uid != os.getuid()
        or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    ):
        raise RunError(
            f"the bot cache {root} is not a folder of this user that only it may write to;"
            f" remove it, or set {CACHE_VARIABLE} to another folder"
        )
    return root


def _cached(parcel: Mapping[str, Any], fetch: Callable[[Any], Any]) -> Path:
    root = cache_root()
    target = root / str(parcel["sha256"])
    if target.is_dir():
        return target
    files: tuple[File, ...] = tuple(
        (str(name), bool(executable), bytes(data))
        for name, executable, data in fetch(parcel["files"])
    )
    if parcel_hash(files) != parcel["sha256"]:
        raise RunError(
            f"the files of the bot from {parcel['origin']} arrived with another content hash"
            f" than the driver's ({parcel['sha256'][:12]}): refused"
        )
    staging = Path(tempfile.mkdtemp(prefix=".arriving-", dir=root))
    try:
        for name, executable, data in files:
            relative = PurePosixPath(name)
            if relative.is_absolute() or ".." in relative.parts or not relative.parts:
                raise RunError(f"a bot's file has an unsafe path {name!r}: refused")
            path = staging.joinpath(*relative.parts)
            path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            path.write_bytes(data)
            path.chmod(0o755 if executable else 0o644)
        # Sandboxed bots run as uids of their own: they must be able to read their files.
        for folder in (staging, *(path for path in staging.rglob("*") if path.is_dir())):
            folder.chmod(0o755)
        try:
            staging.rename(target)
        except OSError:
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
