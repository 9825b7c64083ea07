"""Submissions: attempts are numbered per exercise (a lesson placement submits each of its
lesson's exercises from the lesson page)

Revision ID: 0302_attempts_per_exercise
Revises: 0205_integrity
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0302_attempts_per_exercise"
down_revision: str | Sequence[str] | None = "0205_integrity"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "uq_submissions_placement_id"


def upgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.drop_constraint(NAME, type_="unique")
        batch.create_unique_constraint(
            NAME, ["placement_id", "user_id", "exercise_id", "attempt_number"])


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.drop_constraint(NAME, type_="unique")
        batch.create_unique_constraint(NAME, ["placement_id", "user_id", "attempt_number"])
