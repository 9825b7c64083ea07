"""The learner's "Run": their program in the sandbox on its visible examples, through the same
queue and graders as a submission (a job of kind ``run``), never scored, never an attempt.

A run has its own bounds, checked before it is stored, so Run cannot flood the graders: one run
in flight per learner, ``runs_per_window`` per learner and placement in ``run_window_s``, and
``runs_in_flight`` for the whole service. A run is not retried: one lost or failed for our
reasons says "could not run: try again" (its result holds no hidden check: the worker judges
none, and ``run_json`` keeps only visible ones all the same).
"""

from __future__ import annotations

import logging
import time
import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grading_contract.queues import Queues
from grading_contract.result import HOST_OUTCOMES
from lti_service.core.models import LmsUser, Placement, utcnow
from lti_service.submissions.messages import learner_feedback, outcome_of
from lti_service.submissions.models import CodeRun
from lti_service.submissions.results import learner_result
from lti_service.submissions.settings import GradingSettings

logger = logging.getLogger(__name__)
PREFIX = "run-"


class RunRefused(Exception):
    """A run is not started now; the message says why and when to try again."""


def _in_flight(settings: GradingSettings, now: datetime) -> Any:
    return (CodeRun.status.in_(("queued", "running")),
            CodeRun.created_at >= now - timedelta(seconds=settings.run_stale_s))


def start(session: Session, queues: Queues, settings: GradingSettings, *, placement: Placement,
          user: LmsUser, exercise_id: str, source: str, variant: dict[str, Any],
          course_version: str = "", checks_hash: str = "",
          now: datetime | None = None) -> CodeRun:
    """Store and enqueue a run, or raise RunRefused when a bound says no."""
    now = now or utcnow()
    flying = _in_flight(settings, now)
    mine = session.scalar(select(func.count()).select_from(CodeRun).where(
        CodeRun.user_id == user.id, *flying)) or 0
    if mine:
        raise RunRefused("your previous run is still going: its output appears here when it "
                         "ends")
    recent = session.scalar(select(func.count()).select_from(CodeRun).where(
        CodeRun.user_id == user.id, CodeRun.placement_id == placement.id,
        CodeRun.created_at >= now - timedelta(seconds=settings.run_window_s))) or 0
    if recent >= settings.runs_per_window:
        minutes = max(1, round(settings.run_window_s / 60))
        raise RunRefused(f"you have used {recent} runs in the last {minutes} minutes: wait a "
                         "few minutes before running again (submitting is not affected)")
    everyone = session.scalar(select(func.count()).select_from(CodeRun).where(*flying)) or 0
    if everyone >= settings.runs_in_flight:
        raise RunRefused("the graders are busy: try Run again in a minute (submitting is not "
                         "affected)")
    row = CodeRun(id=PREFIX + uuid.uuid4().hex, placement_id=placement.id, user_id=user.id,
                  exercise_id=exercise_id, source=source, status="queued", created_at=now)
    session.add(row)
    session.commit()
    try:
        queues.enqueue_job({"submission_id": row.id, "attempt": 1, "exercise_id": exercise_id,
                            "source": source, "limits": dict(settings.limits or {}),
                            "enqueued_at": time.time(), "variant": dict(variant),
                            "course_version": course_version, "checks_hash": checks_hash,
                            "kind": "run"})
    except Exception:  # noqa: BLE001 - any transport failure: the run says "try again"
        logger.exception("run not enqueued", extra={"run_id": row.id})
        row.status, row.finished_at = "failed", utcnow()
        session.commit()
    return row


def record(session: Session, result: dict[str, Any]) -> str:
    """Record a worker's (validated) result of a run, once."""
    row = session.scalars(select(CodeRun).where(CodeRun.id == result["submission_id"])
                          .with_for_update()).first()
    if row is None or row.exercise_id != result["exercise_id"]:
        session.rollback()
        return "unknown"
    if row.status in ("done", "failed"):
        session.rollback()
        return "duplicate"
    failed = result["outcome"] in HOST_OUTCOMES or result["outcome"] == "not_gradable"
    row.status = "failed" if failed else "done"
    row.outcome = result["outcome"]
    row.result = {**result, "score": 0.0, "max_score": 0.0}
    row.finished_at = utcnow()
    session.commit()
    return "ran"


def latest(session: Session, placement_id: int, user_id: int,
           exercise_id: str) -> CodeRun | None:
    return session.scalars(select(CodeRun).where(
        CodeRun.placement_id == placement_id, CodeRun.user_id == user_id,
        CodeRun.exercise_id == exercise_id).order_by(CodeRun.created_at.desc())).first()


def state_of(row: CodeRun, settings: GradingSettings, now: datetime | None = None) -> str:
    """queued | done | failed; a run waiting past ``run_stale_s`` was lost: failed."""
    if row.status in ("queued", "running") and \
            row.created_at < (now or utcnow()) - timedelta(seconds=settings.run_stale_s):
        return "failed"
    return row.status


def run_json(row: CodeRun, settings: GradingSettings) -> dict[str, Any]:
    """A run as its learner may read it: output and visible checks, never a hidden one."""
    status = state_of(row, settings)
    result = learner_result(row.result)
    entry = outcome_of(status if status != "done" else "graded", row.outcome)
    badge = "ran" if entry.key == "graded" else entry.badge
    if status == "failed":
        message = "Could not run: try again in a minute (a problem on our side, not in your code)."
    else:
        message = learner_feedback("graded" if status == "done" else status, row.outcome,
                                   str((row.result or {}).get("feedback", "")))
    return {"id": row.id, "status": status, "done": status in ("done", "failed"),
            "badge": badge, "tone": "ok" if badge == "ran" else entry.tone, "message": message,
            "checks": [c for c in result.get("checks", []) if c.get("visibility") == "visible"],
            "stdout": result.get("stdout", ""), "stderr": result.get("stderr", "")}
