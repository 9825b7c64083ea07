"""LTI core tables

Revision ID: 0001_lti_core
Revises: (none)
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_lti_core"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = ("lti_core",)
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "lti_storage",
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_lti_storage")),
    )
    op.create_table(
        "platforms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(length=500), nullable=False),
        sa.Column("client_id", sa.String(length=255), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("auth_login_url", sa.String(length=1000), nullable=False),
        sa.Column("auth_token_url", sa.String(length=1000), nullable=False),
        sa.Column("key_set_url", sa.String(length=1000), nullable=False),
        sa.Column("auth_audience", sa.String(length=1000), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_platforms")),
        sa.UniqueConstraint("issuer", "client_id", name=op.f("uq_platforms_issuer")),
    )
    op.create_table(
        "tool_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kid", sa.String(length=100), nullable=False),
        sa.Column("private_pem", sa.Text(), nullable=False),
        sa.Column("public_pem", sa.Text(), nullable=False),
        sa.Column("current", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("retired_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tool_keys")),
        sa.UniqueConstraint("kid", name=op.f("uq_tool_keys_kid")),
    )
    op.create_table(
        "access_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("scope_key", sa.String(length=64), nullable=False),
        sa.Column("token", sa.Text(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["platforms.id"],
            name=op.f("fk_access_tokens_platform_id_platforms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_access_tokens")),
        sa.UniqueConstraint("platform_id", "scope_key", name=op.f("uq_access_tokens_platform_id")),
    )
    op.create_table(
        "deployments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["platforms.id"],
            name=op.f("fk_deployments_platform_id_platforms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deployments")),
        sa.UniqueConstraint(
            "platform_id", "deployment_id", name=op.f("uq_deployments_platform_id")
        ),
    )
    op.create_table(
        "lms_contexts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.String(length=255), nullable=False),
        sa.Column("context_id", sa.String(length=255), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=False),
        sa.Column("memberships_url", sa.String(length=1000), nullable=True),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["platforms.id"],
            name=op.f("fk_lms_contexts_platform_id_platforms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lms_contexts")),
        sa.UniqueConstraint("platform_id", "context_id", name=op.f("uq_lms_contexts_platform_id")),
    )
    op.create_table(
        "lms_users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("sub", sa.String(length=255), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("email", sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["platforms.id"],
            name=op.f("fk_lms_users_platform_id_platforms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lms_users")),
        sa.UniqueConstraint("platform_id", "sub", name=op.f("uq_lms_users_platform_id")),
    )
    op.create_table(
        "used_nonces",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("nonce", sa.String(length=255), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["platform_id"],
            ["platforms.id"],
            name=op.f("fk_used_nonces_platform_id_platforms"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_used_nonces")),
        sa.UniqueConstraint("platform_id", "nonce", name=op.f("uq_used_nonces_platform_id")),
    )
    op.create_table(
        "placements",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("resource_link_id", sa.String(length=255), nullable=False),
        sa.Column("content_id", sa.String(length=255), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=False),
        sa.Column("lineitem_url", sa.String(length=1000), nullable=True),
        sa.Column("lineitems_url", sa.String(length=1000), nullable=True),
        sa.Column("ags_scopes", sa.JSON(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column("counting", sa.String(length=10), nullable=False),
        sa.ForeignKeyConstraint(
            ["context_id"],
            ["lms_contexts.id"],
            name=op.f("fk_placements_context_id_lms_contexts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_placements")),
        sa.UniqueConstraint(
            "context_id", "resource_link_id", name=op.f("uq_placements_context_id")
        ),
    )
    op.create_table(
        "checkpoint_attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("placement_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("checkpoint_id", sa.String(length=255), nullable=False),
        sa.Column("choice", sa.String(length=20), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("attempt_number", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["placement_id"],
            ["placements.id"],
            name=op.f("fk_checkpoint_attempts_placement_id_placements"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["lms_users.id"],
            name=op.f("fk_checkpoint_attempts_user_id_lms_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_checkpoint_attempts")),
        sa.UniqueConstraint(
            "placement_id",
            "user_id",
            "attempt_number",
            name=op.f("uq_checkpoint_attempts_placement_id"),
        ),
    )
    op.create_table(
        "score_outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("placement_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("max_score", sa.Float(), nullable=False),
        sa.Column("activity_progress", sa.String(length=30), nullable=False),
        sa.Column("grading_progress", sa.String(length=30), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("source", sa.String(length=100), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("delivered_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["placement_id"],
            ["placements.id"],
            name=op.f("fk_score_outbox_placement_id_placements"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["lms_users.id"],
            name=op.f("fk_score_outbox_user_id_lms_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_score_outbox")),
    )
    with op.batch_alter_table("score_outbox", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_score_outbox_status"), ["status"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("score_outbox", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_score_outbox_status"))

    op.drop_table("score_outbox")
    op.drop_table("checkpoint_attempts")
    op.drop_table("placements")
    op.drop_table("used_nonces")
    op.drop_table("lms_users")
    op.drop_table("lms_contexts")
    op.drop_table("deployments")
    op.drop_table("access_tokens")
    op.drop_table("tool_keys")
    op.drop_table("platforms")
    op.drop_table("lti_storage")
