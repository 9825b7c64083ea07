"""Integrity: each submission keeps its exercise variant and what graded it

Revision ID: 0205_integrity
Revises: 0101_grading
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0205_integrity"
down_revision: str | Sequence[str] | None = "0101_grading"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("variant", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("course_version", sa.String(length=100), nullable=False,
                                   server_default=""))
        batch.add_column(sa.Column("checks_hash", sa.String(length=64), nullable=False,
                                   server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("checks_hash")
        batch.drop_column("course_version")
        batch.drop_column("variant")
