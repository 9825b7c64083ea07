"""Grading: submissions and their reported grading runs

Revision ID: 0101_grading
Revises: (none; branch ``grading`` depends on 0001_lti_core)
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0101_grading"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = ("grading",)
depends_on: str | Sequence[str] | None = "0001_lti_core"


def upgrade() -> None:
    op.create_table(
        "submissions",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("placement_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=255), nullable=False),
        sa.Column("attempt_number", sa.Integer(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("source_sha256", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("outcome", sa.String(length=30), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("max_score", sa.Float(), nullable=True),
        sa.Column("feedback", sa.Text(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("grading_try", sa.Integer(), nullable=False),
        sa.Column("infra_failures", sa.Integer(), nullable=False),
        sa.Column("lease_expires_at", sa.DateTime(), nullable=True),
        sa.Column("lease_worker", sa.String(length=255), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("enqueued_at", sa.DateTime(), nullable=True),
        sa.Column("graded_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["placement_id"], ["placements.id"], ondelete="CASCADE",
                                name=op.f("fk_submissions_placement_id_placements")),
        sa.ForeignKeyConstraint(["user_id"], ["lms_users.id"], ondelete="CASCADE",
                                name=op.f("fk_submissions_user_id_lms_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_submissions")),
        sa.UniqueConstraint("placement_id", "user_id", "attempt_number",
                            name=op.f("uq_submissions_placement_id")),
    )
    op.create_index(op.f("ix_submissions_status"), "submissions", ["status"])
    op.create_index(op.f("ix_submissions_lease_expires_at"), "submissions", ["lease_expires_at"])
    op.create_table(
        "grading_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.String(length=36), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("outcome", sa.String(length=30), nullable=False),
        sa.Column("worker", sa.String(length=255), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"], ondelete="CASCADE",
                                name=op.f("fk_grading_runs_submission_id_submissions")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_grading_runs")),
        sa.UniqueConstraint("submission_id", "attempt",
                            name=op.f("uq_grading_runs_submission_id")),
    )


def downgrade() -> None:
    op.drop_table("grading_runs")
    op.drop_index(op.f("ix_submissions_lease_expires_at"), table_name="submissions")
    op.drop_index(op.f("ix_submissions_status"), table_name="submissions")
    op.drop_table("submissions")
