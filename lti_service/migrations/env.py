"""Alembic environment: URL from the config that ``lti_service.core.db`` builds."""

from __future__ import annotations

from alembic import context
from sqlalchemy import pool

# Every feature's tables, for autogenerate (each feature keeps its own models module).
import lti_service.checkpoints.models  # noqa: F401
import lti_service.instructor.models  # noqa: F401
import lti_service.learner.models  # noqa: F401
import lti_service.lti.models  # noqa: F401
import lti_service.outbox.models  # noqa: F401
import lti_service.submissions.models  # noqa: F401
from lti_service.core.db import make_engine
from lti_service.core.models import Base

target_metadata = Base.metadata


def run_migrations_online() -> None:
    url = context.config.get_main_option("sqlalchemy.url")
    assert url, "sqlalchemy.url is not set: call lti_service.core.db.upgrade(url)"
    engine = make_engine(url, poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run_migrations_online()
