"""The bot registry: submitted bots, checked, content-hashed and stored by name and version.

Intake (:mod:`~dp_arena.registry.intake`: unpacking a submission safely, and its manifest,
:mod:`~dp_arena.registry.manifest`) is apart from the store
(:mod:`~dp_arena.registry.store`), the one owner of a bot version.

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

from dp_arena.names import MANIFEST, REGISTRY_PREFIX
from dp_arena.registry.intake import SubmissionLimits, intake, unpack
from dp_arena.registry.manifest import PROTOCOLS, Manifest, bot_folder, read_manifest
from dp_arena.registry.store import (
    Registry,
    StoredBot,
    content_hash,
    pinned_spec,
    registry_location,
    split_spec,
)

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
