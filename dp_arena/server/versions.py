"""A submission's bot version as its one owner says it: the registry's store for a
submitted bot (its label and content hash, looked up by ``name@version``), the house for
a built-in (``built-in``, and the content hash its row keeps).

The registry is the one the database was opened with (:class:`~dp_arena.server.db.Database`,
``registry``): a row loaded by one of its sessions keeps where that registry is, so it
can answer after its session has closed, and each session asks the store once per
version."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event

from dp_arena.names import REGISTRY_DATABASE
from dp_arena.registry import Registry
from dp_arena.server.models import Submission

__all__ = ["BUILTIN_LABEL", "REGISTRY", "BotVersion", "version_of"]

BUILTIN_LABEL = "built-in"  # a house bot's label
REGISTRY = "registry"  # the key of the registry's folder in sessions' and migrations' info
_CACHE = "bot_versions"  # the key of a session's versions looked up
_WHERE = "_dp_arena_versions"  # a loaded row's (registry, its session's versions)


@dataclass(frozen=True, slots=True)
class BotVersion:
    """What a version is: its author's label and the content hash of its code."""

    label: str
    sha256: str


@event.listens_for(Submission, "load")
def _loaded(row: Submission, context: Any) -> None:
    info = context.session.info
    row.__dict__[_WHERE] = (info.get(REGISTRY), info.setdefault(_CACHE, {}))


def version_of(row: Submission) -> BotVersion | None:
    """The version ``row`` names (``None`` before it is accepted, or when the registry
    no longer holds it)."""
    if row.builtin_sha256 is not None:
        return BotVersion(BUILTIN_LABEL, row.builtin_sha256)
    if row.version is None or row.name is None:
        return None
    root, cache = row.__dict__.get(_WHERE, (None, {}))
    key = (root, row.name, row.version)
    if key not in cache:
        cache[key] = _stored(root, row.name, row.version)
    found: BotVersion | None = cache[key]
    return found


def _stored(root: Path | None, name: str, version: int) -> BotVersion | None:
    if root is None or not (root / REGISTRY_DATABASE).is_file():
        return None
    stored = Registry(root).version(name, version)
    return None if stored is None else BotVersion(stored.label, stored.sha256)
