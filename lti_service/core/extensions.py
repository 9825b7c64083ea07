"""Per-app objects (engine, session factory, course) bound in the factory, and the request's
database session on ``g`` (closed at teardown, as in flaskr)."""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask, current_app, g
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from lti_service.core.config import Config
from lti_service.core.course_source import CourseSource


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
    session = g.pop("db", None)
    if session is not None:
        session.close()
