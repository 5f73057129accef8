"""Alembic's environment: migrations run on the connection :meth:`Database.migrate` gives
(``config.attributes["connection"]``), against the models' metadata."""

from __future__ import annotations

from alembic import context

from dp_arena.server.models import Base

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - the server always passes its connection
    raise RuntimeError("run the server's migrations through dp_arena.server.db.Database")
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copy
)
with context.begin_transaction():
    context.run_migrations()
