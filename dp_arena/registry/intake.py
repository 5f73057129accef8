"""Intake of a submission: a folder or an archive (``.zip``, ``.tar.gz``/``.tgz``)
unpacked safely into a fresh folder, and its manifest read.

:func:`intake` refuses what is unsafe or broken with a
:class:`~dp_arena.errors.SubmissionError` whose ``reason`` is a short code:
``too_large``, ``too_many_files``, ``zip_bomb``, ``size_mismatch``, ``unsafe_path``,
``unsafe_link``, ``special_file``, ``bad_archive`` (and the manifest's ``no_manifest``,
``bad_manifest``). Sizes are counted as bytes are copied, never taken from what an
archive declares. What it accepts goes to the store (:mod:`dp_arena.registry.store`)
once the caller's checks pass.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from dp_arena.errors import SubmissionError
from dp_arena.names import MANIFEST
from dp_arena.registry.manifest import Manifest, read_manifest, safe_relative

__all__ = ["SubmissionLimits", "intake", "unpack"]


@dataclass(frozen=True, slots=True)
class SubmissionLimits:
    """What a submission may be: total unpacked bytes, files, archive bytes, and the
    largest compression ratio of an archive member (above it: a zip bomb)."""

    max_bytes: int = 64 * 1024 * 1024
    max_files: int = 2000
    max_archive_bytes: int = 64 * 1024 * 1024
    max_ratio: int = 200



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
                relative = safe_relative(member.filename, where)
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
                relative = safe_relative(member.name, where)
                if member.issym() or member.islnk():
                    target = PurePosixPath(member.linkname)
                    base = relative.parent if member.issym() else PurePosixPath(".")
                    try:
                        safe_relative(str(base / target), where)
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
