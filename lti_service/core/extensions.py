"""Per-app objects (engine, session factory, course) bound in the factory, and the request's
database session on ``g`` (closed at teardown, as in flaskr)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from flask import Flask, current_app, g
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from lti_service.core.config import Config
from lti_service.core.course_source import CourseSource

log = logging.getLogger(__name__)


@dataclass
class State:
    config: Config
    engine: Engine
    sessions: sessionmaker[Session]
    course: CourseSource


def state(app: Flask | None = None) -> State:
    return (app or current_app).extensions["pathways"]


def db() -> Session:
    if "db" not in g:
        g.db = state().sessions()
    return g.db


def close_db(_exc: BaseException | None = None) -> None:
    """Close the request's session. A close that fails (the database went away mid-request)
    is logged without the request's URL (it carries the launch token) and goes no further:
    raised here, it would replace the page already made with the server's empty 500."""
    session = g.pop("db", None)
    if session is not None:
        try:
            session.close()
        except Exception as exc:  # noqa: BLE001 - see the docstring
            log.warning("closing the request's database session failed: %s",
                        type(exc).__name__)
            try:
                session.invalidate()
            except Exception:  # noqa: BLE001 - the connection is gone either way
                pass
