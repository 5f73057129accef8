"""The store of bot versions: the one owner of what a version is.

:class:`Registry` keeps accepted bots in an SQLite database (``registry.sqlite``) beside
a ``bots/`` folder of content-addressed copies. Resubmitting the same content under the
same name is a no-op; new content is the next version (1, 2, ...). A bot version is
``name@version``; its content hash, label, owner, and what to run are the store's, and
everything else (a server's submissions, a run's fingerprints) names the version and asks
the store for the rest.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from dp_arena.errors import SubmissionError
from dp_arena.names import REGISTRY_BOTS, REGISTRY_DATABASE, REGISTRY_PREFIX
from dp_arena.registry.manifest import Manifest, seat_spec

__all__ = [
    "Registry",
    "StoredBot",
    "content_hash",
    "pinned_spec",
    "registry_location",
    "split_spec",
]


def registry_location(explicit: str | Path | None = None) -> Path:
    """The registry to use: ``explicit``, else ``$DP_ARENA_REGISTRY``, else ``./registry``."""
    if explicit is not None:
        return Path(explicit).expanduser().absolute()
    return Path(os.environ.get("DP_ARENA_REGISTRY") or Path.cwd() / "registry").absolute()


def split_spec(spec: str) -> tuple[Path | None, str]:
    """``registry:[ROOT#]reference`` → (the registry root if pinned, ``name[@version]``).

    >>> split_spec("registry:alice@2")
    (None, 'alice@2')
    >>> split_spec("registry:/srv/bots#alice@2")
    (PosixPath('/srv/bots'), 'alice@2')
    """
    body = spec.removeprefix(REGISTRY_PREFIX)
    root, separator, reference = body.rpartition("#")  # names never hold '#'
    return (Path(root), reference) if separator else (None, body)


def pinned_spec(root: Path, stored: StoredBot) -> str:
    """The spec that seats exactly ``stored`` from the registry at ``root``."""
    return f"{REGISTRY_PREFIX}{root.absolute()}#{stored.ref}"


@dataclass(frozen=True, slots=True)
class StoredBot:
    """A bot in the registry, ready to seat: ``spec`` is the Python spec (an absolute
    ``file.py:Class``) or the command line, run in ``folder``."""

    name: str
    version: int
    sha256: str
    label: str
    owner: str
    folder: Path
    entry: str | None
    command: str | None
    submitted: str
    protocol: str = "pipe"

    @property
    def is_python(self) -> bool:
        return self.entry is not None

    @property
    def spec(self) -> str:
        if self.entry is not None:
            file, class_name = self.entry.split(":")
            return f"{self.folder / file}:{class_name}"
        assert self.command is not None
        return self.command

    @property
    def seat_spec(self) -> str:
        """The agent spec that seats this bot (a command, ``cmd:`` or ``acpc:``, runs in
        :attr:`folder`)."""
        return seat_spec(self.folder, self.entry, self.command, self.protocol)

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"


def _files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*"), key=lambda item: item.relative_to(folder).as_posix()):
        if path.is_file():
            yield path


def content_hash(folder: Path) -> str:
    """SHA-256 over a canonical listing of the folder: for every file in path order, its
    POSIX path, whether it is executable, and the SHA-256 of its bytes."""
    listing = hashlib.sha256()
    for path in _files(folder):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        executable = "x" if path.stat().st_mode & 0o111 else "-"
        listing.update(f"{path.relative_to(folder).as_posix()}\0{executable}\0{digest}\n".encode())
    return listing.hexdigest()


# -- the store ---------------------------------------------------------------------------

_SCHEMA = """
CREATE TABLE IF NOT EXISTS bots (
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    label TEXT NOT NULL,
    owner TEXT NOT NULL,
    entry TEXT,
    command TEXT,
    submitted TEXT NOT NULL,
    protocol TEXT NOT NULL DEFAULT 'pipe',
    PRIMARY KEY (name, version),
    UNIQUE (name, sha256)
)
"""


class Registry:
    """Bots by name and version, in ``root/registry.sqlite`` and ``root/bots/<sha256>/``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bots_dir = root / REGISTRY_BOTS
        root.mkdir(parents=True, exist_ok=True)
        self.bots_dir.mkdir(exist_ok=True)
        self.database = root / REGISTRY_DATABASE
        with self._connect() as connection:
            connection.execute(_SCHEMA)
            columns = {row["name"] for row in connection.execute("PRAGMA table_info(bots)")}
            if "protocol" not in columns:  # a registry made before ACPC agents could enter
                connection.execute(
                    "ALTER TABLE bots ADD COLUMN protocol TEXT NOT NULL DEFAULT 'pipe'"
                )

    @classmethod
    def default(cls) -> Registry:
        return cls(registry_location())

    @classmethod
    def existing(cls, root: Path | None = None) -> Registry:
        """The registry at ``root`` (default: :func:`registry_location`), which must exist:
        looking a bot up never creates an empty registry."""
        root = registry_location(root)
        if not (root / REGISTRY_DATABASE).is_file():
            raise SubmissionError(
                "no_registry",
                f"there is no bot registry at {root} (dp-arena submit --registry {root} makes"
                " one; or name another with --registry DIR or [registry] path in the config)",
            )
        return cls(root)

    @classmethod
    def for_spec(cls, spec: str) -> tuple[Registry, str]:
        """The registry a ``registry:`` spec names (pinned, else the default one) and the
        reference within it."""
        root, reference = split_spec(spec)
        return cls.existing(root), reference

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection for one transaction: committed (rolled back on an error), then
        closed (``with sqlite3.connect(...)`` alone commits but keeps the file open)."""
        connection = sqlite3.connect(self.database, timeout=30)
        connection.row_factory = sqlite3.Row
        try:
            with connection:
                yield connection
        finally:
            connection.close()

    def _stored(self, row: sqlite3.Row) -> StoredBot:
        return StoredBot(
            row["name"],
            row["version"],
            row["sha256"],
            row["label"],
            row["owner"],
            self.bots_dir / row["sha256"],
            row["entry"],
            row["command"],
            row["submitted"],
            row["protocol"],
        )

    def add(self, folder: Path, manifest: Manifest, *, owner: str = "") -> tuple[StoredBot, bool]:
        """Store a checked bot; (the stored bot, whether it is new). Same content under
        the same name: the existing version, unchanged."""
        digest = content_hash(folder)
        with self._connect() as connection:
            connection.execute("BEGIN IMMEDIATE")  # one writer at a time: versions stay dense
            row = connection.execute(
                "SELECT * FROM bots WHERE name = ? AND sha256 = ?", (manifest.name, digest)
            ).fetchone()
            if row is not None:
                return self._stored(row), False
            target = self.bots_dir / digest
            if not target.exists():
                staging = Path(tempfile.mkdtemp(prefix=".incoming-", dir=self.bots_dir))
                shutil.copytree(folder, staging, dirs_exist_ok=True)
                for path in [staging, *staging.rglob("*")]:
                    os.chmod(path, 0o755 if path.is_dir() or path.stat().st_mode & 0o111 else 0o644)
                staging.rename(target)
            (latest,) = connection.execute(
                "SELECT COALESCE(MAX(version), 0) FROM bots WHERE name = ?", (manifest.name,)
            ).fetchone()
            submitted = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")  # bookkeeping only
            connection.execute(
                "INSERT INTO bots (name, version, sha256, label, owner, entry, command,"
                " submitted, protocol) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    manifest.name,
                    latest + 1,
                    digest,
                    manifest.version,
                    owner,
                    manifest.entry,
                    manifest.command,
                    submitted,
                    manifest.protocol,
                ),
            )
            row = connection.execute(
                "SELECT * FROM bots WHERE name = ? AND version = ?", (manifest.name, latest + 1)
            ).fetchone()
        return self._stored(row), True

    def find(self, name: str, sha256: str) -> StoredBot | None:
        """The version of ``name`` with this content, if there is one."""
        return self._first("name = ? AND sha256 = ?", name, sha256)

    def version(self, name: str, version: int) -> StoredBot | None:
        """Version ``version`` of ``name``, if the store has it."""
        return self._first("name = ? AND version = ?", name, version)

    def resolve(self, reference: str) -> StoredBot:
        """``name@version`` or ``name`` (its latest version); ``SubmissionError`` if unknown."""
        name, _, version = reference.partition("@")
        if version and not version.isdigit():
            raise SubmissionError(
                "unknown_bot", f"registry: version must be a number, not {version!r}"
            )
        found = (
            self.version(name, int(version))
            if version
            else self._first("name = ? ORDER BY version DESC LIMIT 1", name)
        )
        if found is None:
            raise SubmissionError("unknown_bot", self._unknown(name, version))
        return found

    def _first(self, condition: str, *parameters: object) -> StoredBot | None:
        """The first bot of ``SELECT * FROM bots WHERE condition`` (a literal of this
        class's, its values as ``parameters``), if there is one."""
        with self._connect() as connection:
            query = f"SELECT * FROM bots WHERE {condition}"
            row = connection.execute(query, parameters).fetchone()
        return None if row is None else self._stored(row)

    def _unknown(self, name: str, version: str) -> str:
        with self._connect() as connection:
            rows = connection.execute("SELECT name, version FROM bots ORDER BY name").fetchall()
        names = sorted({row["name"] for row in rows})
        if name in names:
            versions = ", ".join(str(row["version"]) for row in rows if row["name"] == name)
            return (
                f"the registry at {self.root} has no version {version} of {name!r}"
                f" (it has {versions})"
            )
        close = difflib.get_close_matches(name, names, n=3)
        hint = (
            f"; did you mean {' or '.join(repr(match) for match in close)}?"
            if close
            else (
                f"; it holds {', '.join(names[:10])}" + (" ..." if len(names) > 10 else "")
                if names
                else "; it is empty"
            )
        )
        return f"the registry at {self.root} has no bot named {name!r}{hint}"

    def list(self) -> list[StoredBot]:
        with self._connect() as connection:
            rows = connection.execute("SELECT * FROM bots ORDER BY name, version").fetchall()
        return [self._stored(row) for row in rows]
