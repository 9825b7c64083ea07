"""Score outbox: the time of the instructor's last resend (the AGS timestamp it posts)

Revision ID: 0203_outbox_resend
Revises: 0201_registration_invites
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0203_outbox_resend"
down_revision: str | Sequence[str] | None = "0201_registration_invites"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("score_outbox", sa.Column("resent_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("score_outbox") as batch:
        batch.drop_column("resent_at")
