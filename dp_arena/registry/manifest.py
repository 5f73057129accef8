"""A bot folder's manifest, ``bot.toml``: read, checked, and the agent spec it makes.

A manifest names the bot (lower-case letters, digits, ``-``, ``_``, ``.``), the author's
version label, and what to run: a Python class (``entry = "file.py:Class"``) or a
command line (``command = "..."``), served over the pipe protocol or, with
``protocol = "acpc"``, as an ACPC agent. :func:`read_manifest` refuses a broken one with a
:class:`~dp_arena.errors.SubmissionError` (``no_manifest``, ``bad_manifest``).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from dp_arena.errors import SubmissionError
from dp_arena.names import ACPC_PREFIX, COMMAND_PREFIX, MANIFEST
from dp_arena.text import did_you_mean, printable

__all__ = [
    "ACPC_PLACEHOLDERS",
    "MANIFEST",
    "MANIFEST_BYTES",
    "PROTOCOLS",
    "Manifest",
    "bot_folder",
    "read_manifest",
    "safe_relative",
    "seat_spec",
]

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
_ENTRY = re.compile(r"^(?P<file>[^:\s]+\.py):(?P<cls>[A-Za-z_]\w*)$")
# How a command bot talks to the dealer: the pipe protocol of docs/protocol.md, or the
# ACPC dealer protocol, served to the agent by dp-arena's shim (dp_arena.sandbox.bot.acpc).
PROTOCOLS = ("pipe", "acpc")
# The placeholders of an ACPC agent's command line, as ACPC agents take their arguments.
ACPC_PLACEHOLDERS = ("game", "host", "port")


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
        return seat_spec(folder, self.entry, self.command, self.protocol)


def seat_spec(folder: Path, entry: str | None, command: str | None, protocol: str) -> str:
    if entry is not None:
        file, class_name = entry.split(":")
        return f"{folder / file}:{class_name}"
    assert command is not None
    return f"{ACPC_PREFIX if protocol == 'acpc' else COMMAND_PREFIX}{command}"




def safe_relative(name: str, where: str) -> PurePosixPath:
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or re.match(r"^[A-Za-z]:", name):
        raise SubmissionError("unsafe_path", f"{where}: absolute path {name!r}")
    if any(part == ".." for part in path.parts):
        raise SubmissionError("unsafe_path", f"{where}: path {name!r} leaves the folder ('..')")
    parts = [part for part in path.parts if part not in ("", ".")]
    return PurePosixPath(*parts) if parts else PurePosixPath(".")



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
        safe_relative(match["file"], MANIFEST)
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

