"""The grading desk: a code-attempt policy and due date per placement, per-learner allowances
(extra attempts, extensions), manual scores with a reason, and ungraded code runs

Revision ID: 0501_desk
Revises: 0411_doors
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0501_desk"
down_revision: str | Sequence[str] | None = "0411_doors"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("placements") as batch:
        batch.add_column(sa.Column("code_attempts", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("due_at", sa.DateTime(), nullable=True))
    op.create_table(
        "learner_allowances",
        sa.Column("placement_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("extra_attempts", sa.Integer(), nullable=False),
        sa.Column("due_at", sa.DateTime(), nullable=True),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["placement_id"], ["placements.id"], ondelete="CASCADE",
                                name="fk_learner_allowances_placement_id_placements"),
        sa.ForeignKeyConstraint(["user_id"], ["lms_users.id"], ondelete="CASCADE",
                                name="fk_learner_allowances_user_id_lms_users"),
        sa.PrimaryKeyConstraint("placement_id", "user_id", name="pk_learner_allowances"),
    )
    op.create_table(
        "manual_scores",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("placement_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("max_score", sa.Float(), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("by_user_id", sa.Integer(), nullable=True),
        sa.Column("submission_id", sa.String(length=36), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["placement_id"], ["placements.id"], ondelete="CASCADE",
                                name="fk_manual_scores_placement_id_placements"),
        sa.ForeignKeyConstraint(["user_id"], ["lms_users.id"], ondelete="CASCADE",
                                name="fk_manual_scores_user_id_lms_users"),
        sa.ForeignKeyConstraint(["by_user_id"], ["lms_users.id"], ondelete="SET NULL",
                                name="fk_manual_scores_by_user_id_lms_users"),
        sa.PrimaryKeyConstraint("id", name="pk_manual_scores"),
    )
    op.create_index("ix_manual_scores_placement_id", "manual_scores", ["placement_id"])
    op.create_table(
        "code_runs",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("placement_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=255), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("outcome", sa.String(length=30), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["placement_id"], ["placements.id"], ondelete="CASCADE",
                                name="fk_code_runs_placement_id_placements"),
        sa.ForeignKeyConstraint(["user_id"], ["lms_users.id"], ondelete="CASCADE",
                                name="fk_code_runs_user_id_lms_users"),
        sa.PrimaryKeyConstraint("id", name="pk_code_runs"),
    )
    op.create_index("ix_code_runs_placement_id", "code_runs", ["placement_id"])
    op.create_index("ix_code_runs_created_at", "code_runs", ["created_at"])


def downgrade() -> None:
    op.drop_table("code_runs")
    op.drop_table("manual_scores")
    op.drop_table("learner_allowances")
    with op.batch_alter_table("placements") as batch:
        batch.drop_column("due_at")
        batch.drop_column("code_attempts")
