"""The words several layers spell the same: agent-spec prefixes and fixed file names.

A spec that names a bot in a registry starts with :data:`REGISTRY_PREFIX`
(``registry:[ROOT#]name[@version]``), a program run over the pipe protocol with
:data:`COMMAND_PREFIX`, an ACPC agent with :data:`ACPC_PREFIX`. A bot folder holds its
manifest, :data:`MANIFEST`; a registry keeps its versions in :data:`REGISTRY_DATABASE`
beside :data:`REGISTRY_BOTS`, a folder of content-addressed copies. Every module that
reads or writes one of these imports it from here.

>>> f"{REGISTRY_PREFIX}alice@2", f"{COMMAND_PREFIX}./bot", MANIFEST
('registry:alice@2', 'cmd:./bot', 'bot.toml')
"""

from __future__ import annotations

__all__ = [
    "ACPC_PREFIX",
    "COMMAND_PREFIX",
    "MANIFEST",
    "REGISTRY_BOTS",
    "REGISTRY_DATABASE",
    "REGISTRY_PREFIX",
]

REGISTRY_PREFIX = "registry:"
COMMAND_PREFIX = "cmd:"
ACPC_PREFIX = "acpc:"

MANIFEST = "bot.toml"
REGISTRY_DATABASE = "registry.sqlite"
REGISTRY_BOTS = "bots"
