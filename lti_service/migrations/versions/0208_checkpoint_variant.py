"""Checkpoint attempts keep the variant of a parametrised checkpoint that was answered

Revision ID: 0208_checkpoint_variant
Revises: 0207_portfolio_imports
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0208_checkpoint_variant"
down_revision: str | Sequence[str] | None = "0207_portfolio_imports"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("checkpoint_attempts") as batch:
        batch.add_column(sa.Column("variant", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("checkpoint_attempts") as batch:
        batch.drop_column("variant")
