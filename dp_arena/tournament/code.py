"""What code an entrant plays, without a path of the machine that ran it: the ``code``
object of each entrant in ``results.json``, and how summaries and pages show it.

``{"kind": ..., "name": ..., "version": ..., "sha256": ...}``:

- ``kind``: ``builtin``, ``registry``, ``folder``, ``file``, ``module`` or ``command`` (an
  ACPC agent's is a command);
- ``name``: the built-in's or the registry entry's name; a file bot's file name and class
  (``bot.py:Tighty``, never its folder); a bot folder's own name (``mybot/``); a module
  spec as written; a command's words, each path cut to its last part;
- ``version``: the registry version (``null`` otherwise, or when it was not resolved);
- ``sha256``: the bot's content hash, as the run recorded it when it started (the hash a
  resume checks: a file bot's file and the modules of its folder it imports, or its whole
  folder when that is a bot folder with a ``bot.toml``, as for a bot folder; a built-in's
  file, imports and data; the registry's hash of the submission; the module's file or
  package; a command's words and the files it names), or ``null`` when its files were not
  there;
- ``imports``, for a file bot alone (``kind`` ``file``, outside a bot folder): the files
  of its folder it imports, which its hash covers beside its own.

>>> entrant_code("../mybot/bot.py:Tighty", sha256="3f2a9c1e" + "0" * 56)["name"]
'bot.py:Tighty'
>>> code_label(entrant_code("registry:/srv/bots#alice@3"))
'alice@3'
>>> code_label(entrant_code("/home/me/bots/x.py:X", sha256="3f2a9c1e" + "0" * 56))
'x.py:X #3f2a9c1e'
>>> code_label(entrant_code("tag"))
'tag (built-in)'
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from dp_arena.agents import SpecKind, parse_spec
from dp_arena.errors import AgentError
from dp_arena.names import REGISTRY_PREFIX
from dp_arena.registry import split_spec

__all__ = ["HASH_SHOWN", "code_label", "entrant_code"]

HASH_SHOWN = 8  # hex digits of the content hash shown beside a name


def entrant_code(
    spec: str,
    *,
    sha256: str | None = None,
    version: int | None = None,
    imports: list[str] | None = None,
) -> dict[str, Any]:
    """The ``code`` object of an agent spec (as written or resolved: the same either way);
    ``imports`` is a lone file bot's (see the module docstring)."""
    code = _code(spec, sha256=sha256, version=version)
    if imports is not None and code["kind"] == "file":
        code["imports"] = list(imports)
    return code


def _code(spec: str, *, sha256: str | None, version: int | None) -> dict[str, Any]:
    if spec.startswith(REGISTRY_PREFIX):
        _, reference = split_spec(spec)  # a pinned spec names its registry's folder
        name, _, written = reference.partition("@")
        if version is None and written.isdigit():
            version = int(written)
        return {"kind": "registry", "name": name, "version": version, "sha256": sha256}
    try:
        parsed = parse_spec(spec)
    except AgentError:
        return {"kind": "command", "name": _path_free(spec), "version": None, "sha256": sha256}
    if parsed.kind is SpecKind.BUILTIN:
        kind, name = "builtin", spec
    elif parsed.kind is SpecKind.FILE:
        kind, name = "file", f"{PurePath(str(parsed.target)).name}:{parsed.class_name}"
    elif parsed.kind is SpecKind.MODULE:
        kind, name = "module", f"{parsed.target}:{parsed.class_name}"
    elif parsed.kind is SpecKind.FOLDER:
        kind, name = "folder", f"{parsed.name}/"
    else:
        kind, name = "command", " ".join(_path_free(word) for word in parsed.target)
    return {"kind": kind, "name": name, "version": None, "sha256": sha256}


def _path_free(word: str) -> str:
    return (PurePath(word).name or word) if "/" in word or "\\" in word else word


def code_label(code: Mapping[str, Any] | None) -> str:
    """The code as a short label: ``tag (built-in)``, ``alice@3``, ``bot.py:Tighty #3f2a9c1e``."""
    if not code:
        return "–"
    name = str(code.get("name") or "?")
    if code.get("kind") == "builtin":
        return f"{name} (built-in)"
    if code.get("kind") == "registry":
        version = code.get("version")
        return name if version is None else f"{name}@{version}"
    digest = code.get("sha256")
    return f"{name} #{str(digest)[:HASH_SHOWN]}" if digest else name
