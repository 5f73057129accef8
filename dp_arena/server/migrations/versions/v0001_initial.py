"""The first schema: authors, tokens, bots, submissions, matches, ladder points,
snapshots, tournaments and web sessions."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TIME = sa.String(32)
NAME = sa.String(64)


def upgrade() -> None:
    op.create_table(
        "authors",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", NAME, nullable=False, unique=True),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("authors.id"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("revoked_at", TIME, nullable=True),
    )
    op.create_table(
        "bots",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", NAME, nullable=False, unique=True),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("authors.id"), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("authors.id"), nullable=False),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bots.id"), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("archive_sha256", sa.String(64), nullable=False),
        sa.Column("archive_bytes", sa.Integer, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("checked_at", TIME, nullable=True),
        sa.Column("withdrawn_at", TIME, nullable=True),
        sa.Column("name", NAME, nullable=True),
        sa.Column("label", sa.String(64), nullable=True),
        sa.Column("version", sa.Integer, nullable=True),
        sa.Column("sha256", sa.String(64), nullable=True),
        sa.Column("reason", sa.String(32), nullable=True),
        sa.Column("message", sa.Text, nullable=True),
        sa.Column("report", sa.Text, nullable=True),
    )
    op.create_index("ix_submissions_status", "submissions", ["status"])
    op.create_index("ix_submissions_author_created", "submissions", ["author_id", "created_at"])
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("first_id", sa.Integer, sa.ForeignKey("submissions.id"), nullable=False),
        sa.Column("second_id", sa.Integer, sa.ForeignKey("submissions.id"), nullable=False),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("betting", sa.String(16), nullable=False),
        sa.Column("small_blind", sa.Integer, nullable=False),
        sa.Column("big_blind", sa.Integer, nullable=False),
        sa.Column("cap", sa.Integer, nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("key_hex", sa.String(64), nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("started_at", TIME, nullable=True),
        sa.Column("finished_at", TIME, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("tables", sa.Text, nullable=True),
        sa.Column("void_reason", sa.Text, nullable=True),
    )
    op.create_index("ix_matches_status", "matches", ["status"])
    op.create_table(
        "ladder_points",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("submission_id", sa.Integer, sa.ForeignKey("submissions.id"), nullable=False),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("mbb_per_deal", sa.String(32), nullable=False),
        sa.Column("ci_low", sa.String(32), nullable=True),
        sa.Column("ci_high", sa.String(32), nullable=True),
        sa.Column("mu", sa.String(32), nullable=False),
        sa.Column("sigma", sa.String(32), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_index("ix_ladder_points_submission", "ladder_points", ["submission_id"])
    op.create_table(
        "snapshots",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("match_id", sa.Integer, sa.ForeignKey("matches.id"), nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("config", sa.Text, nullable=False),
        sa.Column("run_dir", sa.Text, nullable=False),
        sa.Column("published_dir", sa.Text, nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("finished_at", TIME, nullable=True),
        sa.Column("message", sa.Text, nullable=True),
    )
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("authors.id"), nullable=False),
        sa.Column("session_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("expires_at", TIME, nullable=False),
    )


def downgrade() -> None:
    for table in (
        "web_sessions",
        "tournaments",
        "snapshots",
        "ladder_points",
        "matches",
        "submissions",
        "bots",
        "tokens",
        "authors",
    ):
        op.drop_table(table)
