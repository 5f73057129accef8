"""One module per ``dp-arena`` subcommand, each with ``add_arguments(parser)`` and
``run(args) -> int`` (the exit status).

The exit statuses a bot author meets mean the same in every command (``match``,
``check-agent``, ``submit``, ``plan``, ``run``, ``new-bot``; docs/agents.md lists them):

- ``0``: done;
- ``1`` (:data:`FAILED`): a bot was checked and failed, or a submission was refused;
- ``2`` (:data:`USAGE`): the command line, a config or an agent spec is wrong, or names
  nothing there is (a missing file, class or folder, a typo); nothing was started;
- ``3`` (:data:`NOT_LOADED`): a bot that is there could not be loaded (its sandbox said
  why): ``run`` and ``plan`` refuse the event (``run --allow-absent`` plays it with that
  entrant absent), ``match`` plays it as an absent player and says so, ``check-agent``
  fails it;
- ``130``: interrupted.
"""

from __future__ import annotations

FAILED = 1
USAGE = 2
NOT_LOADED = 3
