"""Fault tolerance: request keys (a repeated request is the same attempt), the outbox's
ambiguous posts, and the heartbeats of the long-running parts

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


def downgrade() -> None:
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
