"""The server's routes: the JSON API under ``/api``, the pages, the author's forms and the
organisers' page, each a thin function over :mod:`dp_arena.server.crud` and the core.

Ids in paths are ``{id:id}``: 1 to 18 digits, so that a longer number is no route (404)
rather than an overflow in a query."""

from __future__ import annotations

from starlette.convertors import register_url_convertor
from starlette.routing import BaseRoute

__all__ = ["routes"]


def routes() -> list[BaseRoute]:
    from dp_arena.server.routes import account, admin, api, pages
    from dp_arena.server.routes.common import IdConvertor

    register_url_convertor("id", IdConvertor())
    return [*api.routes(), *pages.routes(), *account.routes(), *admin.routes()]
