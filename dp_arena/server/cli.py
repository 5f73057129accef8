"""The server's commands: ``dp-arena serve`` runs it (:mod:`~dp_arena.server.cli_serve`);
``dp-arena server ...`` manages it from the command line (authors and tokens,
organisers, moderation, tournaments over the accepted bots, checking a published match:
:mod:`~dp_arena.server.cli_admin`)."""

from __future__ import annotations

from dp_arena.server.cli_admin import add_server_arguments, run_server
from dp_arena.server.cli_serve import add_serve_arguments, run_serve, settings_from

__all__ = [
    "add_serve_arguments",
    "add_server_arguments",
    "run_serve",
    "run_server",
    "settings_from",
]
