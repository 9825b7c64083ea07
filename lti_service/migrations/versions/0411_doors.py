"""Platforms: the operator's allow-list of origins for the platform's service URLs (AGS, NRPS)

Revision ID: 0411_doors
Revises: 0302_attempts_per_exercise
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0411_doors"
down_revision: str | Sequence[str] | None = "0401_idempotency"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("platforms") as batch:
        batch.add_column(sa.Column("service_origins", sa.JSON(), nullable=False,
                                   server_default="[]"))


def downgrade() -> None:
    with op.batch_alter_table("platforms") as batch:
        batch.drop_column("service_origins")
