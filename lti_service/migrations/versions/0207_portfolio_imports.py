"""My learning: evidence notes, and portfolios imported from another course or deployment

Revision ID: 0207_portfolio_imports
Revises: 0203_outbox_resend
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0207_portfolio_imports"
down_revision: str | Sequence[str] | None = "0203_outbox_resend"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "portfolio_imports",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("lms_users.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("source", sa.String(500), nullable=False),
        sa.Column("manifest", sa.JSON(), nullable=False),
        sa.Column("files", sa.JSON(), nullable=False),
        sa.Column("imported_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_portfolio_imports_user_id", "portfolio_imports", ["user_id"])
    op.create_table(
        "evidence_notes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("lms_users.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("lesson_id", sa.String(255), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("user_id", "lesson_id", name="uq_evidence_notes_user_id"),
    )


def downgrade() -> None:
    op.drop_table("evidence_notes")
    op.drop_index("ix_portfolio_imports_user_id", table_name="portfolio_imports")
    op.drop_table("portfolio_imports")
