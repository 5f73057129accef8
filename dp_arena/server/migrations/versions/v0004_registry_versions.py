"""One owner of a bot version: a submission names its version in the bot registry
(``name``, ``version``) and no longer copies the registry's facts about it (its label
and content hash). A house bot's version is a built-in, in no registry: its content hash
stays, as ``builtin_sha256``.

Nothing is lost: before the copies go, each is checked against the registry the database
is opened with (``Database(registry=...)``, which the server gives). A copy that the
registry does not hold as it is refuses the upgrade, naming the submissions, and changes
nothing. Going down writes the copies back from the registry."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import context, op

from dp_arena.errors import ConfigError
from dp_arena.names import REGISTRY_DATABASE
from dp_arena.registry import Registry
from dp_arena.server.versions import BUILTIN_LABEL, REGISTRY
from dp_arena.text import printable

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

HASH = sa.String(64)
_HOUSE = "author_id IN (SELECT id FROM authors WHERE house)"


def _registry() -> Registry | None:
    root: Path | None = context.config.attributes.get(REGISTRY)
    if root is None or not (root / REGISTRY_DATABASE).is_file():
        return None
    return Registry(root)


def upgrade() -> None:
    connection = op.get_bind()
    copies = connection.execute(
        sa.text(
            "SELECT id, name, version, label, sha256 FROM submissions"
            f" WHERE version IS NOT NULL AND NOT {_HOUSE} ORDER BY id"
        )
    ).all()
    registry = _registry()
    problems = []
    for submission, name, version, label, digest in copies:
        stored = None if registry is None else registry.version(name, version)
        if stored is None:
            problems.append(f"{submission} ({name}@{version}: not in the registry)")
        elif stored.sha256 != digest or printable(stored.label, 64) != label:
            problems.append(f"{submission} ({name}@{version}: the registry holds other content)")
    if problems:
        where = "no registry was given" if registry is None else f"the registry {registry.root}"
        shown = ", ".join(problems[:10]) + (" ..." if len(problems) > 10 else "")
        raise ConfigError(
            "--data: the database's submissions copy bot versions that the registry no"
            f" longer holds as they are ({where}): submissions {shown}. Open the database"
            " with the registry its server used (--data), or restore that registry, then"
            " upgrade",
            field="data",
        )
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("builtin_sha256", HASH, nullable=True))
    op.execute(f"UPDATE submissions SET builtin_sha256 = sha256 WHERE {_HOUSE}")
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("label")
        batch.drop_column("sha256")


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("label", sa.String(64), nullable=True))
        batch.add_column(sa.Column("sha256", HASH, nullable=True))
    op.execute(
        "UPDATE submissions SET sha256 = builtin_sha256,"
        f" label = '{BUILTIN_LABEL}' WHERE builtin_sha256 IS NOT NULL"
    )
    registry = _registry()
    if registry is not None:
        connection = op.get_bind()
        named = connection.execute(
            sa.text(
                "SELECT id, name, version FROM submissions"
                " WHERE version IS NOT NULL AND builtin_sha256 IS NULL"
            )
        ).all()
        for submission, name, version in named:
            stored = registry.version(name, version)
            if stored is not None:
                connection.execute(
                    sa.text("UPDATE submissions SET label = :label, sha256 = :sha WHERE id = :id"),
                    {"label": printable(stored.label, 64), "sha": stored.sha256, "id": submission},
                )
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("builtin_sha256")
