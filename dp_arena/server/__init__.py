"""The competition server: authors upload bots over HTTP, a duplicate ladder plays them
continuously, and everyone reads the standings and watches the hands.

::

    dp-arena server add-author alice --db sqlite:///arena.db   # prints alice's token
    dp-arena serve --db sqlite:///arena.db --ladder-deals 200   # http://127.0.0.1:8000/
    dp-arena submit my-bot/ --server http://127.0.0.1:8000 --token TOKEN

Layout, as in a full-stack web template: :mod:`.models` (the tables) and
:mod:`.migrations` (Alembic), :mod:`.crud` (every query), :mod:`.routes` (thin routes:
the JSON API and the pages, with autoescaping templates), and the workers that do the
work the routes only record: :mod:`.checks` (an upload's check, by ``dp-arena submit``'s
own function, the bot in its sandbox) and :mod:`.ladder` (duplicate matches through the
runner's executors, scored by the ratings package). No bot code ever runs in the
server's process. See ``docs/server.md``.
"""

from __future__ import annotations

__all__: list[str] = []
