"""Checkpoint answers: validate the choice, enforce the attempt limit, record the attempt (with
the text and the letter the learner saw), and queue the score that the placement's counting
rule (first, last, best) selects."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from course.model import Checkpoint
from course.variants import shuffled_choices, variant_for
from lti_service.checkpoints.models import CheckpointAttempt
from lti_service.core import placement_policy
from lti_service.core.errors import Conflict, ServiceError, excerpt
from lti_service.core.models import LmsUser, Placement, utcnow
from lti_service.outbox.service.scores import insert_with_score, score_values

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""A choice's label is its letter in the learner's own (stable) order of the choices."""


@dataclass(frozen=True)
class AnswerResult:
    attempt_number: int
    correct: bool
    feedback: str
    explanation: str
    counted_score: float
    attempts_left: int
    choice_label: str = ""
    """The letter the learner saw beside the choice they picked."""
    choice_text: str = ""
    """The text of that choice, as they saw it (their variant)."""


@dataclass(frozen=True)
class ShownChoice:
    label: str
    key: str
    text: str


def shown_choices(seen: Checkpoint) -> list[ShownChoice]:
    """The learner's view of the choices (``checkpoint_for``): each with the letter shown."""
    return [ShownChoice(LABELS[i % len(LABELS)], c.key, c.text)
            for i, c in enumerate(seen.choices)]


def label_of(seen: Checkpoint, key: str) -> str:
    return next((s.label for s in shown_choices(seen) if s.key == key), "")


def lock_reason(placement: Placement, used: int) -> str | None:
    """Why the learner can no longer answer (None: they can)."""
    if used < placement.max_attempts:
        return None
    return (f"Locked: you have used all {placement.max_attempts} "
            f"attempt{'' if placement.max_attempts == 1 else 's'} this checkpoint allows, "
            f"so it takes no more answers; the {placement.counting} attempt counts.")


def latest(seen: Checkpoint, placement: Placement,
           history: Sequence[Any]) -> AnswerResult | None:
    """What the learner was told about their newest answer (None: no answer yet)."""
    return _result(seen, placement, history, history[-1]) if history else None


def checkpoint_for(checkpoint: Checkpoint, placement: Placement, user_id: int) -> Checkpoint:
    """The checkpoint as this learner sees it: their variant of a parametrised one, choices in
    their own stable order. Keys are unchanged, so answers, scoring and per-choice feedback do
    not depend on the order."""
    return shuffled_choices(variant_of(checkpoint, placement, user_id),
                            course=str(placement.context_id), placement=str(placement.id),
                            learner=str(user_id))


def variant_of(checkpoint: Checkpoint, placement: Placement, user_id: int) -> Checkpoint:
    """This learner's variant (stable per course, placement and learner, like an exercise's);
    the checkpoint itself when it declares no parameters."""
    source = checkpoint.template or checkpoint
    if not source.params:
        return checkpoint
    return source.for_variant(variant_for(source.param_space, course=str(placement.context_id),
                                          placement=str(placement.id), learner=str(user_id)))


def attempts_of(session: Session, placement_id: int, user_id: int) -> list[CheckpointAttempt]:
    return list(session.scalars(_ATTEMPTS, {"placement_id": placement_id, "user_id": user_id}))


_ATTEMPT_COLUMNS = ("placement_id", "user_id", "checkpoint_id", "choice", "choice_text",
                    "choice_label", "correct", "variant", "attempt_number", "created_at",
                    "request_key")
_ATTEMPTS_TABLE = CheckpointAttempt.__table__
_INSERT_ATTEMPT = _ATTEMPTS_TABLE.insert()
_EARLIER = (select(CheckpointAttempt.__table__.c.correct,
                   CheckpointAttempt.__table__.c.attempt_number,
                   CheckpointAttempt.__table__.c.choice,
                   CheckpointAttempt.__table__.c.choice_text,
                   CheckpointAttempt.__table__.c.choice_label,
                   CheckpointAttempt.__table__.c.request_key)
            .where(CheckpointAttempt.__table__.c.placement_id == bindparam("placement_id"),
                   CheckpointAttempt.__table__.c.user_id == bindparam("user_id"))
            .order_by(CheckpointAttempt.__table__.c.attempt_number))
# Built once: on the answer path, building a statement cost about what running it did.
_ATTEMPTS = (select(CheckpointAttempt)
             .where(CheckpointAttempt.placement_id == bindparam("placement_id"),
                    CheckpointAttempt.user_id == bindparam("user_id"))
             .order_by(CheckpointAttempt.attempt_number))


def counted(attempts: Sequence[Any], counting: str) -> float:
    """The counted score (1 or 0) of ``attempts`` under the placement's rule."""
    chosen = placement_policy.counted(attempts, counting, lambda a: 1.0 if a.correct else 0.0)
    return 1.0 if chosen is not None and chosen.correct else 0.0


def answer(
    session: Session,
    *,
    placement: Placement,
    user: LmsUser,
    checkpoint: Checkpoint,
    choice: str,
    graded: bool = True,
    request_key: str | None = None,
    earlier: Sequence[Any] | None = None,
) -> AnswerResult:
    """Record one answer; ``graded``: also queue its score for the LMS gradebook (False for a
    lesson placed as an ungraded link, which has no gradebook column to post to).
    ``request_key``: the page's or client's key of this request: a repeat returns the first
    answer's result and records nothing (``uq_checkpoint_attempts_request_key`` decides; the
    caller commits, and a repeat racing the first fails there: ``replay`` answers it).
    ``earlier``: the learner's attempts here, when the caller read them already (the guard's
    query, ``answering.EARLIER_ROWS``); else read here."""
    checkpoint = checkpoint_for(checkpoint, placement, user.id)
    picked = _picked(checkpoint, choice)
    # One read of the learner's attempts serves the repeat check, the limit and the counted
    # score: plain rows on the session's connection (no ORM objects).
    conn = session.connection()
    if earlier is None:
        earlier = conn.execute(_EARLIER, {"placement_id": placement.id,
                                          "user_id": user.id}).all()
    if request_key:
        for row in earlier:
            if row.request_key == request_key:
                return _result(checkpoint, placement, earlier, row)
    if len(earlier) >= placement.max_attempts:
        raise Conflict(f"no attempts left: this checkpoint allows {placement.max_attempts}")
    attempt = CheckpointAttempt(
        placement_id=placement.id, user_id=user.id, checkpoint_id=checkpoint.id,
        choice=picked.key, choice_text=picked.text, choice_label=label_of(checkpoint, picked.key),
        correct=picked.correct, variant=dict(checkpoint.variant) or None,
        attempt_number=len(earlier) + 1, created_at=utcnow(), request_key=request_key or None)
    history = [*earlier, attempt]
    result = _result(checkpoint, placement, history, attempt)
    row = {name: getattr(attempt, name) for name in _ATTEMPT_COLUMNS}
    # Core INSERTs, not the ORM's unit of work: the flush was a quarter of an answer's CPU
    # (issue 23). The object stays out of the session; a later read loads the row. Graded:
    # the attempt and its score in one statement on PostgreSQL (``insert_with_score``).
    if not graded:
        attempt.id = conn.execute(_INSERT_ATTEMPT, row).inserted_primary_key[0]
        return result
    attempt.id = insert_with_score(session, _ATTEMPTS_TABLE, row, score_values(
        placement=placement, user=user, score=result.counted_score, max_score=1.0,
        activity_progress="Completed" if _done(result) else "Submitted",
        grading_progress="FullyGraded",
        comment=f"checkpoint attempt {attempt.attempt_number} ({placement.counting} counts)",
    ), source_prefix="checkpoint:")
    return result


def _picked(checkpoint: Checkpoint, choice: str) -> Any:
    """The checkpoint's choice keyed ``choice``; a ServiceError naming the keys otherwise."""
    picked = checkpoint.choice(choice)
    if picked is None:
        keys = ", ".join(c.key for c in checkpoint.choices)
        raise ServiceError(f"choice {excerpt(choice)} is not one of this checkpoint's choices "
                           f"({keys})", field="choice")
    return picked


def replay(session: Session, *, placement: Placement, user: LmsUser, checkpoint: Checkpoint,
           request_key: str) -> AnswerResult | None:
    """The first answer's result for ``request_key`` (after a commit lost the race to it)."""
    checkpoint = checkpoint_for(checkpoint, placement, user.id)
    history = attempts_of(session, placement.id, user.id)
    for attempt in history:
        if attempt.request_key == request_key:
            return _result(checkpoint, placement, history, attempt)
    return None


def _done(result: AnswerResult) -> bool:
    return result.counted_score == 1.0 or result.attempts_left == 0


def _result(checkpoint: Checkpoint, placement: Placement, history: Sequence[Any],
            attempt: Any) -> AnswerResult:
    """What the learner is told about ``attempt``, as when it was first recorded (``history``:
    attempts or plain rows with correct, attempt_number, choice, choice_text, choice_label)."""
    upto = [a for a in history if a.attempt_number <= attempt.attempt_number]
    score = counted(upto, placement.counting)
    left = placement_policy.attempts_left(placement.max_attempts, len(upto))
    picked = checkpoint.choice(attempt.choice)
    done = score == 1.0 or left == 0
    return AnswerResult(
        attempt_number=attempt.attempt_number,
        correct=attempt.correct,
        feedback=picked.feedback if picked is not None else "",
        explanation=checkpoint.explanation if done else "",
        counted_score=score,
        attempts_left=left,
        choice_label=attempt.choice_label or label_of(checkpoint, attempt.choice),
        choice_text=attempt.choice_text or (picked.text if picked is not None else ""),
    )
