"""The floor: the least an answer-shaped request costs on this machine, measured in the same run.

A minimal Flask view served by the same ``gunicorn -c deploy/gunicorn.conf.py`` (same workers,
same loopback bind, same database kind): it checks a bearer token with the tool's own token
check (``lti_service.core.tokens.unseal``, the encrypted launch token) and does one INSERT in its
own transaction. Whatever our answer path costs above it is ours to explain; what the floor costs
is the machine, the server and the database.

    gunicorn -c deploy/gunicorn.conf.py bench._floor:app   (DATABASE_URL, SECRET_KEY set)
"""

from __future__ import annotations

import os

from flask import Flask, abort, jsonify, request
from sqlalchemy import Column, DateTime, Engine, Integer, MetaData, String, Table, func, select
from werkzeug.wrappers import Response

from lti_service.core.db import make_engine
from lti_service.core.tokens import TokenError, unseal

metadata = MetaData()
hits = Table("bench_floor_hits", metadata,
             Column("id", Integer, primary_key=True),
             Column("user_id", Integer, nullable=False),
             Column("choice", String(20), nullable=False),
             Column("created_at", DateTime, server_default=func.now()))
MAX_AGE_S = 3600


def prepare(database_url: str) -> None:
    """Create the floor's table (once, before gunicorn starts: workers would race on DDL)."""
    engine = make_engine(database_url)
    try:
        metadata.create_all(engine)
    finally:
        engine.dispose()


def create_app(engine: Engine, secret: str) -> Flask:
    app = Flask(__name__)

    @app.post("/floor")
    def floor() -> tuple[Response, int]:
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            abort(401)
        try:
            launch = unseal(token, secret, max_age_s=MAX_AGE_S)
        except TokenError:
            abort(401)
        body = request.get_json(silent=True)
        choice = body.get("choice") if isinstance(body, dict) else None
        if not isinstance(choice, str) or len(choice) > 20:
            abort(400)
        with engine.begin() as conn:
            conn.execute(hits.insert().values(user_id=launch.user_id, choice=choice))
        return jsonify({"ok": True}), 201

    return app


def count(database_url: str) -> int:
    """Rows the floor inserted: recorded must equal sent here too."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(hits)).scalar_one())
    finally:
        engine.dispose()


def _app_from_env() -> Flask | None:
    url, secret = os.environ.get("DATABASE_URL"), os.environ.get("SECRET_KEY")
    return create_app(make_engine(url), secret) if url and secret else None


app = _app_from_env()
