"""The bot registry: submitted bots, checked, content-hashed and stored by name and version.

A submission is a folder or an archive (``.zip``, ``.tar.gz``/``.tgz``) holding a
manifest, ``bot.toml``::

    name = "my-bot"              # lower-case letters, digits, '-', '_', '.'
    version = "1.2"              # the author's label, kept as is
    entry = "bot.py:MyBot"       # a Python class ...
    # command = "node bot.js"    # ... or a command line run in the bot's folder
    # protocol = "acpc"          # with a command: an ACPC agent (docs/protocol.md)

:func:`intake` refuses what is unsafe or broken with a :class:`~dp_arena.errors.SubmissionError`
whose ``reason`` is a short code: ``too_large``, ``too_many_files``, ``zip_bomb``,
``size_mismatch``, ``unsafe_path``, ``unsafe_link``, ``special_file``, ``bad_archive``,
``no_manifest``, ``bad_manifest``, ``failed_check``. :class:`Registry` stores accepted
bots in an SQLite database beside a ``bots/`` folder of content-addressed copies.
Resubmitting the same content under the same name is a no-op; new content is the next
version (1, 2, ...). Events and leaderboards name a bot ``name@version`` (or ``name``
for its latest version), and a seat takes ``registry:name@version``.

The registry is the one a command is given (``--registry DIR``, or ``[registry] path`` in
an event config), else ``$DP_ARENA_REGISTRY`` if set, else ``registry/`` in the working
directory (:func:`registry_location`). An event pins each registry bot when its config is
read: the spec its seats take is :func:`pinned_spec`, ``registry:ROOT#name@version``, so
a version submitted later, or another working directory, changes nothing.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import re
import shutil
import sqlite3
import stat
import tarfile
import tempfile
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from dp_arena.errors import SubmissionError
from dp_arena.text import did_you_mean, printable

__all__ = [
    "MANIFEST",
    "PROTOCOLS",
    "REGISTRY_PREFIX",
    "Manifest",
    "Registry",
    "StoredBot",
    "SubmissionLimits",
    "bot_folder",
    "content_hash",
    "intake",
    "pinned_spec",
    "read_manifest",
    "registry_location",
    "split_spec",
]

REGISTRY_PREFIX = "registry:"


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


MANIFEST = "bot.toml"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
_ENTRY = re.compile(r"^(?P<file>[^:\s]+\.py):(?P<cls>[A-Za-z_]\w*)$")
# How a command bot talks to the dealer: the pipe protocol of docs/protocol.md, or the
# ACPC dealer protocol, served to the agent by dp-arena's shim (dp_arena.sandbox.acpc).
PROTOCOLS = ("pipe", "acpc")
# The placeholders of an ACPC agent's command line, as ACPC agents take their arguments.
ACPC_PLACEHOLDERS = ("game", "host", "port")


@dataclass(frozen=True, slots=True)
class SubmissionLimits:
    """What a submission may be: total unpacked bytes, files, archive bytes, and the
    largest compression ratio of an archive member (above it: a zip bomb)."""

    max_bytes: int = 64 * 1024 * 1024
    max_files: int = 2000
    max_archive_bytes: int = 64 * 1024 * 1024
    max_ratio: int = 200


@dataclass(frozen=True, slots=True)
class Manifest:
    name: str
    version: str
    entry: str | None  # "file.py:Class"
    command: str | None
    protocol: str = "pipe"  # a command's: "pipe" or "acpc"

    @property
    def is_python(self) -> bool:
        return self.entry is not None

    def seat_spec(self, folder: Path) -> str:
        """The agent spec that seats this bot from ``folder`` (a command runs there)."""
        return _seat_spec(folder, self.entry, self.command, self.protocol)


def _seat_spec(folder: Path, entry: str | None, command: str | None, protocol: str) -> str:
    if entry is not None:
        file, class_name = entry.split(":")
        return f"{folder / file}:{class_name}"
    assert command is not None
    return f"{'acpc' if protocol == 'acpc' else 'cmd'}:{command}"


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
        return _seat_spec(self.folder, self.entry, self.command, self.protocol)

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"


# -- intake: archive and folder safety ---------------------------------------------------


def _safe_relative(name: str, where: str) -> PurePosixPath:
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or re.match(r"^[A-Za-z]:", name):
        raise SubmissionError("unsafe_path", f"{where}: absolute path {name!r}")
    if any(part == ".." for part in path.parts):
        raise SubmissionError("unsafe_path", f"{where}: path {name!r} leaves the folder ('..')")
    parts = [part for part in path.parts if part not in ("", ".")]
    return PurePosixPath(*parts) if parts else PurePosixPath(".")


class _Budget:
    def __init__(self, limits: SubmissionLimits, where: str) -> None:
        self.limits, self.where, self.bytes, self.files = limits, where, 0, 0

    def add_file(self, size: int) -> None:
        self.files += 1
        self.bytes += size
        if self.files > self.limits.max_files:
            raise SubmissionError(
                "too_many_files", f"{self.where}: more than {self.limits.max_files} files"
            )
        if self.bytes > self.limits.max_bytes:
            raise SubmissionError(
                "too_large", f"{self.where}: more than {self.limits.max_bytes} bytes unpacked"
            )


def _copy_stream(source, target: Path, declared: int, budget: _Budget, name: str) -> None:  # type: ignore[no-untyped-def]
    """Copy a member while counting: never trust a declared size."""
    written = 0
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "wb") as out:
        while chunk := source.read(1 << 16):
            written += len(chunk)
            if written > declared:
                raise SubmissionError(
                    "size_mismatch",
                    f"{budget.where}: {name} holds more than the {declared} bytes it declares",
                )
            out.write(chunk)
    if written != declared:
        raise SubmissionError(
            "size_mismatch",
            f"{budget.where}: {name} holds {written} bytes, not the {declared} it declares",
        )


def _unpack_zip(archive: Path, destination: Path, limits: SubmissionLimits) -> None:
    where = archive.name
    budget = _Budget(limits, where)
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = bundle.infolist()
            declared_total = sum(member.file_size for member in members)
            if declared_total > limits.max_bytes:
                raise SubmissionError(
                    "too_large",
                    f"{where}: declares {declared_total} bytes unpacked (limit {limits.max_bytes})",
                )
            for member in members:
                relative = _safe_relative(member.filename, where)
                mode = member.external_attr >> 16
                if stat.S_ISLNK(mode):
                    raise SubmissionError(
                        "unsafe_link", f"{where}: {member.filename} is a symbolic link"
                    )
                if member.is_dir():
                    (destination / relative).mkdir(parents=True, exist_ok=True)
                    continue
                if (
                    member.compress_size
                    and member.file_size / member.compress_size > limits.max_ratio
                ):
                    raise SubmissionError(
                        "zip_bomb",
                        f"{where}: {member.filename} expands"
                        f" {member.file_size // max(1, member.compress_size)}x"
                        f" (limit {limits.max_ratio}x)",
                    )
                budget.add_file(member.file_size)
                with bundle.open(member) as source:
                    _copy_stream(
                        source, destination / relative, member.file_size, budget, member.filename
                    )
                if mode & 0o111:
                    os.chmod(destination / relative, 0o755)
    except zipfile.BadZipFile as error:
        raise SubmissionError("bad_archive", f"{where}: not a valid zip archive: {error}") from None


def _unpack_tar(archive: Path, destination: Path, limits: SubmissionLimits) -> None:
    where = archive.name
    budget = _Budget(limits, where)
    compressed = archive.stat().st_size
    try:
        with tarfile.open(archive, "r:*") as bundle:
            for member in bundle:  # streaming: a gzip bomb is caught as it expands
                relative = _safe_relative(member.name, where)
                if member.issym() or member.islnk():
                    target = PurePosixPath(member.linkname)
                    base = relative.parent if member.issym() else PurePosixPath(".")
                    try:
                        _safe_relative(str(base / target), where)
                    except SubmissionError:
                        raise SubmissionError(
                            "unsafe_link",
                            f"{where}: {member.name} links outside the folder ({member.linkname})",
                        ) from None
                    raise SubmissionError(
                        "unsafe_link", f"{where}: {member.name} is a link; submit plain files"
                    )
                if member.isdir():
                    (destination / relative).mkdir(parents=True, exist_ok=True)
                    continue
                if not member.isfile():
                    raise SubmissionError(
                        "special_file", f"{where}: {member.name} is not a regular file"
                    )
                budget.add_file(member.size)
                if budget.bytes > limits.max_ratio * max(compressed, 1):
                    raise SubmissionError(
                        "zip_bomb", f"{where}: expands more than {limits.max_ratio}x"
                    )
                source = bundle.extractfile(member)
                assert source is not None
                _copy_stream(source, destination / relative, member.size, budget, member.name)
                if member.mode & 0o111:
                    os.chmod(destination / relative, 0o755)
    except (tarfile.TarError, EOFError, OSError) as error:
        if isinstance(error, SubmissionError):
            raise
        raise SubmissionError("bad_archive", f"{where}: not a valid tar archive: {error}") from None


def _copy_folder(source: Path, destination: Path, limits: SubmissionLimits) -> None:
    where = str(source)
    budget = _Budget(limits, where)
    root = source.resolve()
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if any(part in ("__pycache__", ".git") for part in relative.parts):
            continue
        if path.is_symlink():
            target = path.resolve()
            if not target.is_relative_to(root):
                raise SubmissionError(
                    "unsafe_link",
                    f"{where}: {relative} links outside the folder ({os.readlink(path)})",
                )
            if target.is_dir():
                raise SubmissionError(
                    "unsafe_link", f"{where}: {relative} links to a folder; submit plain files"
                )
        if path.is_dir():
            (destination / relative).mkdir(parents=True, exist_ok=True)
            continue
        if not path.is_file():
            raise SubmissionError("special_file", f"{where}: {relative} is not a regular file")
        size = path.stat().st_size
        budget.add_file(size)
        with open(path, "rb") as stream:
            _copy_stream(stream, destination / relative, size, budget, str(relative))
        if path.stat().st_mode & 0o111:
            os.chmod(destination / relative, 0o755)


# The largest manifest read (a few lines are enough).
MANIFEST_BYTES = 64 * 1024


def read_manifest(folder: Path, *, name: str | None = None) -> Manifest:
    """The validated manifest of an unpacked bot (``name`` overrides the manifest's)."""
    path = folder / MANIFEST
    if not path.is_file():
        raise SubmissionError("no_manifest", f"no {MANIFEST} at the top of the submission")
    if path.stat().st_size > MANIFEST_BYTES:
        raise SubmissionError(
            "bad_manifest",
            f"{MANIFEST}: over {MANIFEST_BYTES // 1024} KiB; a manifest is a few lines",
        )
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise SubmissionError(
            "bad_manifest", f"{MANIFEST}: not valid TOML: {printable(error)}"
        ) from None
    except RecursionError:  # the TOML parser recurses once per level of nesting
        raise SubmissionError("bad_manifest", f"{MANIFEST}: nested too deeply") from None
    bot_name = name if name is not None else data.get("name")
    if not isinstance(bot_name, str) or not _NAME.match(bot_name):
        raise SubmissionError(
            "bad_manifest",
            f"{MANIFEST}: name must be 1-64 of a-z 0-9 - _ . (starting with a letter or"
            f" digit), not {bot_name!r}",
        )
    version = data.get("version")
    if not isinstance(version, str) or not version.strip() or len(version) > 40:
        raise SubmissionError(
            "bad_manifest",
            f"{MANIFEST}: version must be a short string, not {printable(repr(version), 80)}",
        )
    if not version.isprintable():  # shown on organisers' terminals and pages as it is
        raise SubmissionError(
            "bad_manifest",
            f"{MANIFEST}: version must be printable text, without control or format"
            f" characters, not '{printable(version)}'",
        )
    entry, command = data.get("entry"), data.get("command")
    if (entry is None) == (command is None):
        raise SubmissionError(
            "bad_manifest",
            f'{MANIFEST}: give exactly one of entry = "file.py:Class" or command = "..."',
        )
    if entry is not None:
        match = _ENTRY.match(entry) if isinstance(entry, str) else None
        if match is None:
            raise SubmissionError(
                "bad_manifest", f'{MANIFEST}: entry must look like "file.py:Class", not {entry!r}'
            )
        _safe_relative(match["file"], MANIFEST)
        if not (folder / match["file"]).is_file():
            raise SubmissionError(
                "bad_manifest",
                f"{MANIFEST}: entry file {match['file']!r} is not in the bot's folder"
                + did_you_mean(match["file"], _python_files(folder)),
            )
    if command is not None and (not isinstance(command, str) or not command.strip()):
        raise SubmissionError(
            "bad_manifest", f"{MANIFEST}: command must be a non-empty string, not {command!r}"
        )
    protocol = data.get("protocol", "pipe")
    if protocol not in PROTOCOLS:
        raise SubmissionError(
            "bad_manifest",
            f"{MANIFEST}: protocol must be one of {', '.join(map(repr, PROTOCOLS))},"
            f" not {printable(repr(protocol), 80)}",
        )
    if protocol == "acpc":
        _check_acpc_command(command)
    unknown = set(data) - {
        "name",
        "version",
        "entry",
        "command",
        "protocol",
        "description",
        "language",
        "author",
    }
    if unknown:
        raise SubmissionError(
            "bad_manifest", f"{MANIFEST}: unknown field(s) {', '.join(sorted(unknown))}"
        )
    return Manifest(bot_name, version.strip(), entry, command, protocol)


def _check_acpc_command(command: str | None) -> None:
    """An ACPC agent is a command that names the port it connects to (``{port}``), and
    no placeholder but ``{game}``, ``{host}`` and ``{port}``."""
    if command is None:
        raise SubmissionError(
            "bad_manifest",
            f'{MANIFEST}: protocol = "acpc" needs a command, such as'
            ' command = "./player {game} {host} {port}", not an entry',
        )
    named = set(re.findall(r"\{([^{}]*)\}", command))
    unknown = named - set(ACPC_PLACEHOLDERS)
    leftover = re.sub(r"\{[^{}]*\}", "", command)
    if unknown or "port" not in named or "{" in leftover or "}" in leftover:
        what = (
            f"unknown placeholder(s) {', '.join('{' + name + '}' for name in sorted(unknown))}"
            if unknown
            else "no {port}"
            if "port" not in named
            else "an unmatched brace"
        )
        raise SubmissionError(
            "bad_manifest",
            f"{MANIFEST}: an ACPC agent's command names the game definition, host and port"
            f" it is given as {{game}}, {{host}} and {{port}} (such as"
            f' "./player {{game}} {{host}} {{port}}"): {printable(repr(command), 80)} has {what}',
        )


def bot_folder(folder: Path) -> tuple[str, Manifest]:
    """The agent spec that seats the bot folder ``folder`` (its ``bot.toml`` says what to
    run: a class, a command or an ACPC agent) and its manifest;
    :class:`~dp_arena.errors.SubmissionError` (``no_manifest``, ``bad_manifest``) says
    what is wrong with it."""
    manifest = read_manifest(folder)
    return manifest.seat_spec(folder.absolute()), manifest


def _python_files(folder: Path) -> list[str]:
    """The Python files of a bot's folder, by their paths in it (the first thousand)."""
    found = []
    for path in folder.rglob("*.py"):
        if "__pycache__" not in path.parts:
            found.append(path.relative_to(folder).as_posix())
        if len(found) >= 1000:
            break
    return sorted(found)


def unpack(path: Path, destination: Path, limits: SubmissionLimits = SubmissionLimits()) -> None:
    """Copy a submitted folder or unpack an archive into ``destination``, safely."""
    name = path.name.lower()
    if path.is_dir():
        _copy_folder(path, destination, limits)
    elif not path.is_file():
        raise SubmissionError("bad_archive", f"{path}: no such file or folder")
    elif path.stat().st_size > limits.max_archive_bytes:
        raise SubmissionError("too_large", f"{path}: archive over {limits.max_archive_bytes} bytes")
    elif name.endswith(".zip"):
        _unpack_zip(path, destination, limits)
    elif name.endswith((".tar.gz", ".tgz", ".tar")):
        _unpack_tar(path, destination, limits)
    else:
        raise SubmissionError("bad_archive", f"{path}: submit a folder, a .zip or a .tar.gz")
    # An archive with everything in one top folder: that folder is the bot.
    entries = list(destination.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and not (destination / MANIFEST).exists():
        inner = entries[0]
        for item in list(inner.iterdir()):
            item.rename(destination / item.name)
        inner.rmdir()


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
        self.bots_dir = root / "bots"
        root.mkdir(parents=True, exist_ok=True)
        self.bots_dir.mkdir(exist_ok=True)
        self.database = root / "registry.sqlite"
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
        if not (root / "registry.sqlite").is_file():
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
        with self._connect() as connection:
            row = connection.execute(
                "SELECT * FROM bots WHERE name = ? AND sha256 = ?", (name, sha256)
            ).fetchone()
        return None if row is None else self._stored(row)

    def resolve(self, reference: str) -> StoredBot:
        """``name@version`` or ``name`` (its latest version); ``SubmissionError`` if unknown."""
        name, _, version = reference.partition("@")
        with self._connect() as connection:
            if version:
                if not version.isdigit():
                    raise SubmissionError(
                        "unknown_bot", f"registry: version must be a number, not {version!r}"
                    )
                row = connection.execute(
                    "SELECT * FROM bots WHERE name = ? AND version = ?", (name, int(version))
                ).fetchone()
            else:
                row = connection.execute(
                    "SELECT * FROM bots WHERE name = ? ORDER BY version DESC LIMIT 1", (name,)
                ).fetchone()
        if row is None:
            raise SubmissionError("unknown_bot", self._unknown(name, version))
        return self._stored(row)

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


def intake(
    path: Path,
    *,
    name: str | None = None,
    limits: SubmissionLimits = SubmissionLimits(),
    workdir: Path | None = None,
) -> tuple[Path, Manifest]:
    """Unpack a submission into a fresh folder and read its manifest; the caller checks
    the bot and removes the folder."""
    folder = Path(tempfile.mkdtemp(prefix="dp-arena-submission-", dir=workdir))
    os.chmod(folder, 0o755)
    try:
        unpack(path, folder, limits)
        for item in [folder, *folder.rglob("*")]:  # readable by the sandboxed bot's own uid
            os.chmod(item, 0o755 if item.is_dir() or item.stat().st_mode & 0o111 else 0o644)
        manifest = read_manifest(folder, name=name)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder, manifest
