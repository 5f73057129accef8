"""Queries: every read and write of the server's tables, as plain functions over a
session. Routes and workers call these; none of them builds SQL of its own.

One module a kind of row: :mod:`~dp_arena.server.crud.accounts` (authors, tokens,
organisers, switches, moderation, signed-in browsers), :mod:`~dp_arena.server.crud.bots`
(submissions and bots), :mod:`~dp_arena.server.crud.matches` (matches, standings,
tournaments), over :mod:`~dp_arena.server.crud.common` (statuses and helpers). Every
query is given here too, as ``crud.NAME``.
"""

from __future__ import annotations

# Every public name of the kinds' modules, as crud.NAME.
from dp_arena.server.crud import accounts, bots, common, matches
from dp_arena.server.crud.accounts import *  # noqa: F403
from dp_arena.server.crud.bots import *  # noqa: F403
from dp_arena.server.crud.common import *  # noqa: F403
from dp_arena.server.crud.matches import *  # noqa: F403

__all__: list[str] = []
__all__ += accounts.__all__
__all__ += bots.__all__
__all__ += common.__all__
__all__ += matches.__all__
