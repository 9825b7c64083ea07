"""The rows of the class's CSV exports (exercise attempts, final scores); the views write
them with ``core.spreadsheet.csv_text`` (formula-safe cells)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from lti_service.core.models import Placement
from lti_service.submissions.attempts import counted_of
from lti_service.submissions.models import ManualScore, Submission

ATTEMPTS_HEADER = ["user_id", "name", "email", "activity", "content_id", "attempt", "status",
                   "outcome", "score", "max_score", "counted", "submitted_at", "graded_at",
                   "run_s", "variant"]
FINAL_HEADER = ["user_id", "name", "email", "activity", "content_id", "score", "max_score",
                "how", "gradebook"]


def _by_user(session: Session, model: Any, placements: list[Placement]) -> dict[int, list[Any]]:
    ids = [p.id for p in placements]
    out: dict[int, list[Any]] = {}
    order = model.attempt_number if model is Submission else model.id
    for row in session.scalars(select(model).where(model.placement_id.in_(ids)).order_by(order)):
        out.setdefault(row.user_id, []).append(row)
    return out


def exercise_attempts(session: Session, view: Any, users: dict[str, Any]) -> Iterator[list[Any]]:
    """One row per graded code attempt of every roster learner (``users``: sub -> LmsUser)."""
    exercises = [p for p in view.placements if p.id not in view.distributions]
    subs = _by_user(session, Submission, exercises)
    for row in view.rows:
        user = users.get(row.sub)
        mine = subs.get(user.id, []) if user else []
        for p in exercises:
            here = [s for s in mine if s.placement_id == p.id]
            chosen = counted_of(p, here)
            for s in here:
                timings = (s.result or {}).get("timings") or {}
                yield [row.sub, row.name, row.email, p.title, p.content_id, s.attempt_number,
                       s.status, s.outcome or "", s.score, s.max_score,
                       int(chosen is not None and chosen.id == s.id),
                       s.created_at.isoformat(), s.graded_at.isoformat() if s.graded_at else "",
                       timings.get("run_s", ""),
                       json.dumps(s.variant, sort_keys=True) if s.variant else ""]


def final_scores(session: Session, view: Any, users: dict[str, Any],
                 maxima: dict[int, float]) -> Iterator[list[Any]]:
    """One row per (roster learner, graded activity): the score the gradebook holds or will,
    and how it was reached (the instructor's score with its reason, the counted attempt, the
    checkpoint's counting); ``maxima``: placement id -> its points."""
    exercises = [p for p in view.placements if p.id not in view.distributions]
    subs = _by_user(session, Submission, exercises)
    manuals = _by_user(session, ManualScore, view.placements)
    for row in view.rows:
        user = users.get(row.sub)
        for p in view.placements:
            delivery = view.delivery(row, p) or ""
            given = [m for m in (manuals.get(user.id, []) if user else [])
                     if m.placement_id == p.id]
            if given:
                m = given[-1]
                yield [row.sub, row.name, row.email, p.title, p.content_id, m.score,
                       m.max_score, f"set by the instructor: {m.reason}", delivery]
            elif p.id in view.distributions:
                score = view.score(row, p)
                yield [row.sub, row.name, row.email, p.title, p.content_id,
                       "" if score is None else score, 1,
                       f"checkpoint ({p.counting} answer)" if score is not None
                       else "no answer", delivery]
            else:
                here = [s for s in (subs.get(user.id, []) if user else [])
                        if s.placement_id == p.id]
                chosen = counted_of(p, here)
                yield [row.sub, row.name, row.email, p.title, p.content_id,
                       "" if chosen is None else chosen.score,
                       chosen.max_score if chosen else maxima.get(p.id, ""),
                       f"attempt {chosen.attempt_number} ({p.counting} counts)" if chosen
                       else "no graded attempt", delivery]
