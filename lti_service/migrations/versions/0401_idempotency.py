"""Fault tolerance: request keys (a repeated request is the same attempt), the outbox's
ambiguous posts, the heartbeats of the long-running parts, and the cached class roster

Revision ID: 0401_idempotency
Revises: 0302_attempts_per_exercise
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0401_idempotency"
down_revision: str | Sequence[str] | None = "0302_attempts_per_exercise"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("request_key", sa.String(length=64), nullable=True))
        batch.create_unique_constraint(
            "uq_submissions_request_key",
            ["placement_id", "user_id", "exercise_id", "request_key"])
    with op.batch_alter_table("checkpoint_attempts") as batch:
        batch.add_column(sa.Column("request_key", sa.String(length=64), nullable=True))
        batch.create_unique_constraint(
            "uq_checkpoint_attempts_request_key", ["placement_id", "user_id", "request_key"])
    with op.batch_alter_table("score_outbox") as batch:
        batch.add_column(sa.Column("posting_since", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("ambiguous", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    op.create_table(
        "part_heartbeats",
        sa.Column("part", sa.String(length=100), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("beat_at", sa.DateTime(), nullable=False),
        sa.Column("state", sa.String(length=300), nullable=False),
        sa.PrimaryKeyConstraint("part", name="pk_part_heartbeats"),
    )
    op.create_table(
        "roster_cache",
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("members", sa.JSON(), nullable=False),
        sa.Column("fetched_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["context_id"], ["lms_contexts.id"], ondelete="CASCADE",
                                name="fk_roster_cache_context_id_lms_contexts"),
        sa.PrimaryKeyConstraint("context_id", name="pk_roster_cache"),
    )


def downgrade() -> None:
    op.drop_table("roster_cache")
    op.drop_table("part_heartbeats")
    with op.batch_alter_table("score_outbox") as batch:
        batch.drop_column("ambiguous")
        batch.drop_column("posting_since")
    with op.batch_alter_table("checkpoint_attempts") as batch:
        batch.drop_constraint("uq_checkpoint_attempts_request_key", type_="unique")
        batch.drop_column("request_key")
    with op.batch_alter_table("submissions") as batch:
        batch.drop_constraint("uq_submissions_request_key", type_="unique")
        batch.drop_column("request_key")
