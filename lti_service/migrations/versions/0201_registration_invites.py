"""Registration invites: one-time Dynamic Registration URLs

Revision ID: 0201_registration_invites
Revises: 0001_lti_core
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0201_registration_invites"
down_revision: str | Sequence[str] | None = "0001_lti_core"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "registration_invites",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_sha256", sa.String(length=64), nullable=False),
        sa.Column("issuer", sa.String(length=500), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=True),
        sa.Column("platform_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["platform_id"], ["platforms.id"],
            name=op.f("fk_registration_invites_platform_id_platforms"), ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_registration_invites")),
        sa.UniqueConstraint("token_sha256", name=op.f("uq_registration_invites_token_sha256")),
    )


def downgrade() -> None:
    op.drop_table("registration_invites")
