"""Pages (issue 24): a checkpoint answer keeps the text and label the learner saw; an imported
portfolio keeps its digest (the same ZIP twice is one import) and whose it says it is

Revision ID: 0511_pages
Revises: 0411_doors
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0511_pages"
down_revision: str | Sequence[str] | None = "0501_desk"
branch_labels: str | Sequence[str] | None = None
# Its tables are the core branch's (checkpoint_attempts, portfolio_imports).
depends_on: str | Sequence[str] | None = "0301_lesson_opens"


def upgrade() -> None:
    with op.batch_alter_table("checkpoint_attempts") as batch:
        batch.add_column(sa.Column("choice_text", sa.Text(), nullable=True))
        batch.add_column(sa.Column("choice_label", sa.String(4), nullable=True))
    with op.batch_alter_table("portfolio_imports") as batch:
        batch.add_column(sa.Column("digest", sa.String(64), nullable=True))
        batch.add_column(sa.Column("identity", sa.String(500), nullable=False,
                                   server_default=""))
    op.create_index("uq_portfolio_imports_digest", "portfolio_imports", ["user_id", "digest"],
                    unique=True)


def downgrade() -> None:
    op.drop_index("uq_portfolio_imports_digest", table_name="portfolio_imports")
    with op.batch_alter_table("portfolio_imports") as batch:
        batch.drop_column("identity")
        batch.drop_column("digest")
    with op.batch_alter_table("checkpoint_attempts") as batch:
        batch.drop_column("choice_label")
        batch.drop_column("choice_text")
