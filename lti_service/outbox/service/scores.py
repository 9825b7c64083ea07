"""Scores for the LMS gradebook: ``record_score`` writes an outbox row in the caller's
transaction (CONTRACTS.md 6); ``lti_service.outbox.service.delivery.deliver_due`` posts it.
``insert_with_score`` writes a graded row (a checkpoint attempt) and its score together."""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import Integer, String, Table, bindparam, cast, literal, select
from sqlalchemy.orm import Session

from lti_service.core.errors import ServiceError
from lti_service.core.models import LmsUser, Placement, utcnow
from lti_service.outbox.models import ScoreOutbox

ACTIVITY = ("Initialized", "Started", "InProgress", "Submitted", "Completed")
GRADING = ("FullyGraded", "Pending", "PendingManual", "Failed", "NotReady")


def score_values(
    *,
    placement: Placement,
    user: LmsUser,
    score: float,
    max_score: float,
    activity_progress: str = "Completed",
    grading_progress: str = "FullyGraded",
    comment: str = "",
) -> dict[str, Any]:
    """A checked outbox row's columns, all but ``source`` (``ServiceError`` when out of range)."""
    if activity_progress not in ACTIVITY:
        raise ServiceError(f"activity_progress={activity_progress!r}: use one of {ACTIVITY}")
    if grading_progress not in GRADING:
        raise ServiceError(f"grading_progress={grading_progress!r}: use one of {GRADING}")
    if max_score <= 0 or not 0 <= score <= max_score:
        raise ServiceError(f"score {score} / {max_score}: need 0 <= score <= max_score > 0")
    now = utcnow()
    return {"placement_id": placement.id, "user_id": user.id, "score": float(score),
            "max_score": float(max_score), "activity_progress": activity_progress,
            "grading_progress": grading_progress, "comment": comment, "status": "pending",
            "tries": 0, "next_attempt_at": now, "created_at": now, "last_error": "",
            "ambiguous": False}


def record_score(
    session: Session,
    *,
    placement: Placement,
    user: LmsUser,
    score: float,
    max_score: float,
    activity_progress: str = "Completed",
    grading_progress: str = "FullyGraded",
    comment: str = "",
    source: str,
) -> ScoreOutbox:
    """Queue a score; nothing is sent here, so the caller's commit decides whether it exists."""
    values = score_values(placement=placement, user=user, score=score, max_score=max_score,
                          activity_progress=activity_progress,
                          grading_progress=grading_progress, comment=comment)
    values["source"] = source
    # A Core INSERT in the caller's transaction, not the ORM's unit of work (a flush was a
    # sixth of a checkpoint answer's CPU, issue 23); the row object stays out of the session,
    # with its id: a later read loads the stored row.
    row = ScoreOutbox(**values)
    row.id = session.connection().execute(_INSERT, values).inserted_primary_key[0]
    return row


def insert_with_score(session: Session, table: Table, row: dict[str, Any],
                      score: dict[str, Any], *, source_prefix: str) -> int:
    """Insert ``row`` into ``table`` (integer ``id``) and queue ``score`` (``score_values``)
    with source ``source_prefix`` + the new row's id; returns that id.

    On PostgreSQL one round trip (a data-modifying CTE: the answer path's statement count,
    issue 23); elsewhere (SQLite, in-process: no round trip to save) two INSERTs.
    """
    conn = session.connection()
    if conn.dialect.name != "postgresql":
        new_id = conn.execute(table.insert(), row).inserted_primary_key[0]
        conn.execute(_INSERT, {**score, "source": f"{source_prefix}{new_id}"})
        return int(new_id)
    statement = _insert_with_score(table, tuple(row), tuple(score))
    params = {f"r_{k}": v for k, v in row.items()}
    params.update({f"s_{k}": v for k, v in score.items()})
    params["source_prefix"] = source_prefix
    return int(conn.execute(statement, params).scalar_one())


@functools.cache
def _insert_with_score(table: Table, row_keys: tuple[str, ...],
                       score_keys: tuple[str, ...]) -> Any:
    """``WITH r AS (INSERT INTO table ... RETURNING id), s AS (INSERT INTO score_outbox
    SELECT ..., :prefix || r.id FROM r RETURNING id) SELECT r.id FROM r, s``, built once per
    column set (building a statement per request cost about what running it did)."""
    inserted = (table.insert()
                .values({k: bindparam(f"r_{k}", type_=table.c[k].type) for k in row_keys})
                .returning(table.c.id).cte("r"))
    columns = [bindparam(f"s_{k}", type_=_TABLE.c[k].type).label(k) for k in score_keys]
    source = (cast(bindparam("source_prefix", type_=String), String)
              + cast(cast(inserted.c.id, Integer), String)).label("source")
    scored = (_TABLE.insert()
              .from_select([*score_keys, "source"], select(*columns, source).select_from(inserted))
              .returning(_TABLE.c.id).cte("s"))
    return select(inserted.c.id).select_from(inserted.join(scored, literal(True)))


_TABLE = ScoreOutbox.__table__
_INSERT = _TABLE.insert()
