"""The submission path without Flask: store, enqueue, record results, reap expired leases.

The submission row is the truth and the queue only transport: a row is committed before its
job is enqueued, a lost or dropped job is found again by the reaper (missing from the queue, or
its lease expired), and a result is recorded once per (submission, try), so at-least-once
delivery is safe. A graded
result, the placement's counted score and the outbox row (``record_score``) share one
transaction, so a score reaches the LMS exactly when the grade exists.
"""

from __future__ import annotations

import hashlib
import logging
import time
import uuid
from datetime import datetime, timedelta
from typing import Any

from marshmallow import ValidationError
from sqlalchemy import and_, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from course.model import Exercise
from course.variants import default_variant, variant_for
from grading_contract.queues import Queues
from grading_contract.result import FINAL_NOT_CHARGED, HOST_OUTCOMES, ResultSchema
from lti_service.core import placement_policy
from lti_service.core.models import LmsUser, Placement, utcnow
from lti_service.outbox.service.scores import record_score
from lti_service.submissions import attempts, manual, runs
from lti_service.submissions.messages import cut_words
from lti_service.submissions.models import GradingRun, Submission
from lti_service.submissions.settings import GradingSettings

logger = logging.getLogger(__name__)
CHARGED = ("queued", "running", "graded")


class SubmissionError(Exception):
    """A submission cannot be accepted; the message says why and what to do."""


def attempts_used(session: Session, placement_id: int, user_id: int,
                  exercise_id: str | None = None) -> int:
    """Charged attempts of the learner in the placement (of one exercise, when given: a
    lesson placement holds attempts at each of its exercises)."""
    query = select(func.count()).select_from(Submission).where(
        Submission.placement_id == placement_id, Submission.user_id == user_id,
        Submission.status.in_(CHARGED))
    if exercise_id is not None:
        query = query.where(Submission.exercise_id == exercise_id)
    return session.scalar(query) or 0


def learner_variant(exercise: Exercise, placement: Placement, user_id: int) -> dict[str, Any]:
    """The learner's variant of ``exercise``: stable for (course, placement, learner)."""
    return variant_for(exercise.param_space, course=str(placement.context_id),
                       placement=str(placement.id), learner=str(user_id))


def variant_on(exercise: Exercise, placement: Placement, user_id: int) -> dict[str, Any]:
    """The variant graded in ``placement``: the learner's own on the exercise's placement, the
    default one on a lesson page (the variant its shared, cached text shows)."""
    if scores_placement(placement, exercise.id):
        return learner_variant(exercise, placement, user_id)
    return default_variant(exercise.param_space)


def submit(session: Session, queues: Queues, settings: GradingSettings, *, placement: Placement,
           user: LmsUser, exercise_id: str, source: str,
           variant: dict[str, Any] | None = None, course_version: str = "",
           checks_hash: str = "", max_attempts: int | None = None,
           request_key: str | None = None) -> Submission:
    """Store the submission (committed), then enqueue its first grading try with the
    learner's ``variant``, and the course version and checks hash this service expects to
    grade it (a worker with other checks refuses the job rather than grade it differently).
    ``max_attempts``: the limit per exercise when not the placement's own (a lesson page's).
    ``request_key``: the page's or client's key of this request: a repeat of it returns the
    first submission and charges nothing (the unique key ``uq_submissions_request_key``
    decides, so two repeats racing each other still make one row)."""
    if request_key:
        first = _by_key(session, placement.id, user.id, exercise_id, request_key)
        if first is not None:
            return first
    given = attempts.allowance(session, placement.id, user.id)
    limit = attempts.code_limit(placement, given) if max_attempts is None else max_attempts
    closes = attempts.due(placement, given) if max_attempts is None else None
    if closes is not None and utcnow() > closes:
        raise SubmissionError(f"this exercise closed on {closes:%Y-%m-%d %H:%M} UTC; ask your "
                              "instructor for an extension")
    used = attempts_used(session, placement.id, user.id, exercise_id)
    if limit is not None and used >= limit:
        kept = ("your counted score stays as shown below; your instructor can give attempts "
                "back" if max_attempts is None
                else "your attempts stay listed below and in My learning")
        raise SubmissionError(f"you have used all {limit} attempts for this exercise; {kept}")
    number = (session.scalar(select(func.max(Submission.attempt_number)).where(
        Submission.placement_id == placement.id, Submission.user_id == user.id,
        Submission.exercise_id == exercise_id)) or 0) + 1
    row = Submission(id=str(uuid.uuid4()), placement_id=placement.id, user_id=user.id,
                     exercise_id=exercise_id, attempt_number=number, source=source,
                     source_sha256=hashlib.sha256(source.encode()).hexdigest(),
                     status="queued", feedback="", grading_try=1, infra_failures=0,
                     lease_worker="", created_at=utcnow(), variant=dict(variant or {}),
                     course_version=course_version, checks_hash=checks_hash,
                     request_key=request_key or None)
    _lease(row, settings.queued_lease_s)
    session.add(row)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        first = _by_key(session, placement.id, user.id, exercise_id, request_key) \
            if request_key else None
        if first is not None:  # the same request, made at the same moment: one attempt
            return first
        raise SubmissionError("another submission of this exercise was made at the same "
                              "moment: reload the page to see it") from None
    logger.info("submission stored", extra={"submission_id": row.id, "attempt": number})
    _enqueue(session, queues, settings, row)
    return row


def _by_key(session: Session, placement_id: int, user_id: int, exercise_id: str,
            request_key: str) -> Submission | None:
    return session.scalars(select(Submission).where(
        Submission.placement_id == placement_id, Submission.user_id == user_id,
        Submission.exercise_id == exercise_id,
        Submission.request_key == request_key)).first()


def _lease(row: Submission, seconds: float, now: datetime | None = None) -> None:
    row.lease_expires_at = (now or utcnow()) + timedelta(seconds=seconds)


def _enqueue(session: Session, queues: Queues, settings: GradingSettings,
             row: Submission) -> None:
    """Send the row's current try; if the queue is down the row stays queued for the reaper."""
    row.enqueued_at = utcnow()
    session.commit()
    try:
        queues.enqueue_job({"submission_id": row.id, "attempt": row.grading_try,
                            "exercise_id": row.exercise_id, "source": row.source,
                            "limits": dict(settings.limits or {}), "enqueued_at": time.time(),
                            "variant": dict(row.variant or {}),
                            "course_version": row.course_version or "",
                            "checks_hash": row.checks_hash or ""})
    except Exception:  # noqa: BLE001 - any transport failure: the reaper sends it again
        logger.exception("enqueue failed; the reaper will retry",
                         extra={"submission_id": row.id, "attempt": row.grading_try})


def handle_message(session: Session, queues: Queues, settings: GradingSettings,
                   message: dict[str, Any]) -> str:
    """Apply one message from the results queue; returns what was done (for logs and tests)."""
    kind = message.get("kind") if isinstance(message, dict) else None
    if kind in ("started", "heartbeat"):
        return _touch(session, settings, message)
    if kind == "result":
        return record_result(session, queues, settings, message.get("result"))
    logger.warning("unknown results message dropped", extra={"kind": str(kind)[:50]})
    return "dropped"


def _locked(session: Session, submission_id: Any) -> Submission | None:
    if not isinstance(submission_id, str):
        return None
    return session.scalars(select(Submission).where(Submission.id == submission_id)
                           .with_for_update()).first()


def _touch(session: Session, settings: GradingSettings, message: dict[str, Any]) -> str:
    row = _locked(session, message.get("submission_id"))
    if row is None or row.status not in ("queued", "running") \
            or row.grading_try != message.get("attempt"):
        session.rollback()
        return "stale"
    now = utcnow()
    row.status = "running"
    row.heartbeat_at = now
    row.lease_worker = str(message.get("worker", ""))[:255]
    _lease(row, settings.running_lease_s, now)
    session.commit()
    return "running"


def record_result(session: Session, queues: Queues, settings: GradingSettings,
                  data: Any) -> str:
    """Record a worker's result once; grade, retry (infrastructure) or ignore (duplicate)."""
    try:
        result = ResultSchema().load(data)
    except ValidationError as exc:
        logger.error("invalid result dropped", extra={"errors": str(exc.messages)[:500]})
        return "invalid"
    if result["kind"] == "run":  # a learner's "Run": never a grade
        return runs.record(session, result)
    row = _locked(session, result["submission_id"])
    if row is None:
        session.rollback()
        logger.warning("result for an unknown submission",
                       extra={"submission_id": result["submission_id"]})
        return "unknown"
    if result["exercise_id"] != row.exercise_id:
        session.rollback()
        logger.error("result names another exercise", extra={"submission_id": row.id})
        return "invalid"
    session.add(GradingRun(submission_id=row.id, attempt=result["attempt"],
                           outcome=result["outcome"], worker=result["environment"]["worker"],
                           result=result, recorded_at=utcnow()))
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        return "duplicate"
    if row.status in ("graded", "not_gradable"):
        session.commit()  # keep the run for the record; the first final result stands
        return "late"
    if result["outcome"] in HOST_OUTCOMES:
        return _retry(session, queues, settings, row, result["feedback"])
    if result["outcome"] in FINAL_NOT_CHARGED:
        row.status = "not_gradable"
        row.lease_expires_at = None
        row.feedback = result["feedback"]
        session.commit()
        logger.error("submission not gradable", extra={"submission_id": row.id,
                                                       "outcome": result["outcome"]})
        return "not_gradable"
    row.status = "graded"
    row.outcome = result["outcome"]
    row.score = float(result["score"])
    row.max_score = float(result["max_score"])
    row.feedback = result["feedback"]
    row.result = result
    row.course_version = result.get("course_version", "")
    row.checks_hash = result.get("checks_hash", "")
    row.graded_at = utcnow()
    row.lease_expires_at = None
    session.flush()
    _post_counted_score(session, row)
    session.commit()
    logger.info("submission graded", extra={"submission_id": row.id, "outcome": row.outcome,
                                            "score": row.score})
    return "graded"


def _retry(session: Session, queues: Queues, settings: GradingSettings, row: Submission,
           why: str) -> str:
    row.infra_failures += 1
    if row.grading_try >= settings.max_tries:
        row.status = "not_gradable"
        row.lease_expires_at = None
        row.feedback = (f"We could not grade this submission after {row.grading_try} tries "
                        f"(a problem on our side: {cut_words(why, 300)}). It does not count "
                        "as an attempt; please submit again later.")
        session.commit()
        logger.error("submission not gradable", extra={"submission_id": row.id})
        return "not_gradable"
    row.grading_try += 1
    row.status = "queued"
    _lease(row, settings.queued_lease_s)
    session.commit()
    _enqueue(session, queues, settings, row)
    return "retried"


def reap(session: Session, queues: Queues, settings: GradingSettings,
         now: datetime | None = None) -> int:
    """Send again every queued or running submission whose lease expired, and every queued
    one whose job is no longer in the queue; return how many."""
    now = now or utcnow()
    return _reap_expired(session, queues, settings, now) \
        + resend_lost(session, queues, settings, now)


def resend_lost(session: Session, queues: Queues, settings: GradingSettings,
                now: datetime) -> int:
    """Re-send (same try) each queued submission sent over ``lost_after_s`` ago whose job is
    not in the grading queue and that no worker has claimed: the message was lost (a Redis
    failover, a flushed queue). A job a worker took is claimed before it runs
    (``Queues.claim``), so it is not re-sent, and a copy that raced the claim is dropped by
    the worker: one grading per (submission, try). A worker that dies after claiming is
    covered by the lease."""
    sent_before = now - timedelta(seconds=settings.lost_after_s)
    # Never sent at all counts too: the row committed, then the database went away before
    # the send was recorded (the learner's retry with the same request key finds the row).
    ids = list(session.scalars(select(Submission.id).where(
        Submission.status == "queued",
        or_(Submission.enqueued_at < sent_before,
            and_(Submission.enqueued_at.is_(None), Submission.created_at < sent_before)))))
    session.rollback()
    if not ids:
        return 0
    waiting = queues.queued_jobs()
    count = 0
    for submission_id in ids:
        row = _locked(session, submission_id)
        if row is None or row.status != "queued" \
                or (row.enqueued_at or row.created_at) >= sent_before \
                or (row.id, row.grading_try) in waiting \
                or queues.claimed(row.id, row.grading_try):
            session.rollback()
            continue
        logger.warning("job missing from the queue; sending it again",
                       extra={"submission_id": row.id, "attempt": row.grading_try})
        _enqueue(session, queues, settings, row)
        count += 1
    return count


def _reap_expired(session: Session, queues: Queues, settings: GradingSettings,
                  now: datetime) -> int:
    ids = list(session.scalars(select(Submission.id).where(
        Submission.status.in_(("queued", "running")), Submission.lease_expires_at < now)))
    session.rollback()
    count = 0
    for submission_id in ids:
        row = _locked(session, submission_id)
        if row is None or row.status not in ("queued", "running") \
                or row.lease_expires_at is None or row.lease_expires_at >= now:
            session.rollback()
            continue
        logger.warning("lease expired; enqueuing again",
                       extra={"submission_id": row.id, "attempt": row.grading_try,
                              "worker": row.lease_worker})
        _retry(session, queues, settings, row, "the grader stopped answering")
        count += 1
    return count


def regrade(session: Session, queues: Queues, settings: GradingSettings, *,
            placement: Placement, exercise: Exercise) -> int:
    """Grade again every graded submission of ``placement`` whose checks hash is not the
    exercise's current one; returns how many. Each becomes a new grading try of the same
    row, so its result goes through ``record_result`` and the counted score through the
    outbox like any grade."""
    rows = list(session.scalars(select(Submission).where(
        Submission.placement_id == placement.id, Submission.status == "graded",
        Submission.exercise_id == exercise.id,
        Submission.checks_hash != exercise.checks_hash).with_for_update()))
    for row in rows:
        row.status = "queued"
        row.grading_try += 1
        row.infra_failures = 0
        row.checks_hash = exercise.checks_hash  # the checks to grade it; the result confirms
        _lease(row, settings.queued_lease_s)
    session.commit()
    for row in rows:
        _enqueue(session, queues, settings, row)
        logger.info("regrade queued", extra={"submission_id": row.id,
                                             "attempt": row.grading_try})
    return len(rows)


def counted(session: Session, placement: Placement, user_id: int) -> Submission | None:
    """The graded submission that counts under the placement's policy (first, last, best):
    only attempts at the placement's own exercise count (a lesson page's practice never)."""
    rows = list(session.scalars(select(Submission).where(
        Submission.placement_id == placement.id, Submission.user_id == user_id,
        Submission.exercise_id == placement.content_id,
        Submission.status == "graded").order_by(Submission.attempt_number)))
    return placement_policy.counted(rows, placement.counting, lambda r: r.score or 0.0)


def scores_placement(placement: Placement, exercise_id: str) -> bool:
    """Whether a grade of ``exercise_id`` is the placement's score: only on a placement of
    that very exercise. An attempt made on a lesson's page is practice: its lesson's line
    item (if any) is a completion score, and an exercise placement of the same exercise is
    graded only by submissions made there (docs/SECURITY.md)."""
    return placement.content_id == exercise_id


def _post_counted_score(session: Session, row: Submission) -> None:
    placement = session.get(Placement, row.placement_id)
    user = session.get(LmsUser, row.user_id)
    assert placement is not None and user is not None
    if not scores_placement(placement, row.exercise_id) or manual.latest(
            session, placement.id, row.user_id) is not None:
        return  # practice, or the instructor's score stands (the desk shows both)
    chosen = counted(session, placement, row.user_id)
    if chosen is None or not chosen.max_score:
        return
    record_score(session, placement=placement, user=user, score=chosen.score or 0.0,
                 max_score=chosen.max_score, activity_progress="Completed",
                 grading_progress="FullyGraded",
                 comment=f"Attempt {chosen.attempt_number}: {chosen.feedback}"[:1000],
                 source=f"exercise:{chosen.id}")


def history(session: Session, placement_id: int, user_id: int,
            exercise_id: str | None = None) -> list[Submission]:
    """The learner's attempts in the placement, newest first (at one exercise, when given)."""
    query = select(Submission).where(Submission.placement_id == placement_id,
                                     Submission.user_id == user_id)
    if exercise_id is not None:
        query = query.where(Submission.exercise_id == exercise_id)
    return list(session.scalars(query.order_by(Submission.attempt_number.desc())))

