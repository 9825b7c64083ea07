"""My learning: the lessons each learner opened in an LMS course, first and last time

Revision ID: 0301_lesson_opens
Revises: 0208_checkpoint_variant
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0301_lesson_opens"
down_revision: str | Sequence[str] | None = "0208_checkpoint_variant"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "lesson_opens",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("lms_users.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("context_id", sa.Integer(),
                  sa.ForeignKey("lms_contexts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("lesson_id", sa.String(255), nullable=False),
        sa.Column("first_opened_at", sa.DateTime(), nullable=False),
        sa.Column("last_opened_at", sa.DateTime(), nullable=False),
        sa.Column("opens", sa.Integer(), nullable=False),
        sa.UniqueConstraint("user_id", "context_id", "lesson_id",
                            name="uq_lesson_opens_user_id"),
    )


def downgrade() -> None:
    op.drop_table("lesson_opens")
