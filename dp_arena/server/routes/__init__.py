"""The server's routes: the JSON API under ``/api`` and the pages, each a thin function
over :mod:`dp_arena.server.crud` and the core."""

from __future__ import annotations

from starlette.routing import BaseRoute

__all__ = ["routes"]


def routes() -> list[BaseRoute]:
    from dp_arena.server.routes import api, pages

    return [*api.routes(), *pages.routes()]
