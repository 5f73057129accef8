"""The whole competition: a match seats k players (``match_players``, its rows copied from
the heads-up matches' ``first_id`` and ``second_id``), house bots and disabled authors,
organisers with their own tokens and browser sessions, the server's switches (the
ladder paused) and the log of organisers' actions."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TIME = sa.String(32)
NAME = sa.String(64)


def upgrade() -> None:
    op.create_table(
        "match_players",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("submission_id", sa.Integer, sa.ForeignKey("submissions.id"), nullable=False),
        sa.UniqueConstraint("match_id", "position", name="uq_match_players_position"),
    )
    op.create_index("ix_match_players_submission", "match_players", ["submission_id"])
    op.execute(
        "INSERT INTO match_players (match_id, position, submission_id)"
        " SELECT id, 0, first_id FROM matches"
    )
    op.execute(
        "INSERT INTO match_players (match_id, position, submission_id)"
        " SELECT id, 1, second_id FROM matches"
    )
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("first_id")
        batch.drop_column("second_id")
    with op.batch_alter_table("authors") as batch:
        batch.add_column(sa.Column("house", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("disabled_at", TIME, nullable=True))
    op.create_table(
        "organisers",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", NAME, nullable=False, unique=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("revoked_at", TIME, nullable=True),
    )
    with op.batch_alter_table("web_sessions") as batch:
        batch.alter_column("author_id", existing_type=sa.Integer, nullable=True)
        batch.add_column(
            sa.Column(
                "organiser_id",
                sa.Integer,
                sa.ForeignKey("organisers.id", name="fk_web_sessions_organiser"),
                nullable=True,
            )
        )
    op.create_table(
        "server_state",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
        sa.Column("updated_by", sa.String(80), nullable=False),
    )
    op.create_table(
        "moderation",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("actor", sa.String(80), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(200), nullable=False),
    )


def downgrade() -> None:
    """Back to heads-up matches: a match of more than two players cannot be, and is
    refused (nothing is changed)."""
    connection = op.get_bind()
    larger = connection.execute(
        sa.text("SELECT count(*) FROM match_players WHERE position >= 2")
    ).scalar()
    if larger:
        raise RuntimeError("the database holds matches of more than two players: not downgraded")
    op.drop_table("moderation")
    op.drop_table("server_state")
    op.execute("DELETE FROM web_sessions WHERE author_id IS NULL")
    with op.batch_alter_table("web_sessions") as batch:
        batch.drop_column("organiser_id")
        batch.alter_column("author_id", existing_type=sa.Integer, nullable=False)
    op.drop_table("organisers")
    with op.batch_alter_table("authors") as batch:
        batch.drop_column("disabled_at")
        batch.drop_column("house")
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("first_id", sa.Integer, nullable=True))
        batch.add_column(sa.Column("second_id", sa.Integer, nullable=True))
    op.execute(
        "UPDATE matches SET first_id = (SELECT submission_id FROM match_players"
        " WHERE match_players.match_id = matches.id AND position = 0),"
        " second_id = (SELECT submission_id FROM match_players"
        " WHERE match_players.match_id = matches.id AND position = 1)"
    )
    with op.batch_alter_table("matches") as batch:
        batch.alter_column("first_id", existing_type=sa.Integer, nullable=False)
        batch.alter_column("second_id", existing_type=sa.Integer, nullable=False)
        batch.create_foreign_key("fk_matches_first", "submissions", ["first_id"], ["id"])
        batch.create_foreign_key("fk_matches_second", "submissions", ["second_id"], ["id"])
    op.drop_index("ix_match_players_submission", "match_players")
    op.drop_table("match_players")
