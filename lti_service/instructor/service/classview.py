"""The instructor's class view: roster joined with checkpoint attempts and score deliveries."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from course.model import Course
from course.variants import variant_space
from lti_service.checkpoints.models import CheckpointAttempt
from lti_service.checkpoints.service import counted
from lti_service.core import content
from lti_service.core.models import LmsContext, LmsUser, Placement
from lti_service.lti.service.launches import is_instructor
from lti_service.outbox.models import ScoreOutbox
from lti_service.submissions.models import Submission


@dataclass
class Row:
    sub: str
    name: str
    email: str
    roles: list[str]
    attempts: dict[int, list[CheckpointAttempt]] = field(default_factory=dict)
    submissions: dict[int, list[Any]] = field(default_factory=dict)


@dataclass
class ClassView:
    context: LmsContext
    placements: list[Placement]
    rows: list[Row]
    distributions: dict[int, list[tuple[str, str, bool, int]]]
    outbox: list[ScoreOutbox]
    difficulty: dict[int, float | None] = field(default_factory=dict)
    """Checkpoint placement id -> share of learners whose first answer was wrong."""
    histograms: dict[int, list[tuple[str, int]]] = field(default_factory=dict)
    """Exercise placement id -> (outcome bucket, learners) of each learner's best attempt."""
    graded: set[int] = field(default_factory=set)
    """Checkpoint placements whose answers go to the LMS gradebook; the others are practice
    (a lesson placed as an ungraded link): their distributions are shown apart."""

    def delivery(self, row: Row, placement: Placement) -> str | None:
        """The state of this learner's newest score for this placement in the LMS gradebook."""
        found = [r for r in self.outbox
                 if r.placement_id == placement.id and r.user is not None and r.user.sub == row.sub]
        return found[-1].status if found else None

    @property
    def undelivered(self) -> list[ScoreOutbox]:
        """Scores not (yet) in the LMS gradebook, newest first: what the instructor must see."""
        return [r for r in reversed(self.outbox) if r.status not in ("delivered", "superseded")]

    def score(self, row: Row, placement: Placement) -> float | None:
        tried = row.attempts.get(placement.id)
        return counted(tried, placement.counting) if tried else None


def build(session: Session, course: Course, context: LmsContext,
          members: list[dict[str, Any]]) -> ClassView:
    placements = list(session.scalars(
        select(Placement).where(Placement.context_id == context.id).order_by(Placement.id)))
    users = {u.sub: u for u in session.scalars(
        select(LmsUser).where(LmsUser.platform_id == context.platform_id))}
    attempts = list(session.scalars(
        select(CheckpointAttempt).join(Placement)
        .where(Placement.context_id == context.id)
        .order_by(CheckpointAttempt.attempt_number)))
    by_user: dict[int, list[CheckpointAttempt]] = {}
    for a in attempts:
        by_user.setdefault(a.user_id, []).append(a)
    submissions = _submissions(session, context)
    rows = []
    for member in members:
        roles = list(member.get("roles") or [])
        if is_instructor(roles):
            continue
        row = Row(sub=member["user_id"], name=member.get("name", ""),
                  email=member.get("email", ""), roles=roles)
        user = users.get(row.sub)
        for a in by_user.get(user.id, []) if user else []:
            row.attempts.setdefault(a.placement_id, []).append(a)
        for sub in submissions.get(user.id, []) if user else []:
            row.submissions.setdefault(sub.placement_id, []).append(sub)
        rows.append(row)
    distributions = {}
    for p in placements:
        item = content.find(course, p.content_id)
        if item is None or item.kind in content.EXERCISE_KINDS:
            continue
        counts = Counter(a.choice for a in attempts if a.placement_id == p.id)
        # By choice key, whatever variant or order each learner saw: the texts as written
        # (``{{name}}`` fields), "correct" only where a choice is correct in every variant.
        checkpoint = item.lesson.checkpoint
        source = checkpoint.template or checkpoint
        space = variant_space(source.param_space)
        distributions[p.id] = [(c.key, c.text, all(c.correct_in(v) for v in space),
                                counts.get(c.key, 0)) for c in source.choices]
    outbox = list(session.scalars(
        select(ScoreOutbox).join(Placement).where(Placement.context_id == context.id)
        .options(selectinload(ScoreOutbox.user), selectinload(ScoreOutbox.placement))
        .order_by(ScoreOutbox.id)))
    checkpoint_ids = set(distributions)
    difficulty = {pid: first_wrong_share(
        [a for a in attempts if a.placement_id == pid]) for pid in checkpoint_ids}
    histograms = {p.id: outcome_histogram([s for r in rows for s in r.submissions.get(p.id, [])])
                  for p in placements if p.id not in checkpoint_ids
                  and any(p.id in r.submissions for r in rows)}
    graded = {p.id for p in placements if p.id in checkpoint_ids and content.has_gradebook_column(
        content.find(course, p.content_id).kind, p.lineitem_url)}  # type: ignore[union-attr]
    return ClassView(context, placements, rows, distributions, outbox, difficulty, histograms,
                     graded)


def first_wrong_share(attempts: list[CheckpointAttempt]) -> float | None:
    """Difficulty of a checkpoint: the share of learners whose first answer was not correct."""
    first: dict[int, bool] = {}
    for a in sorted(attempts, key=lambda a: a.attempt_number):
        first.setdefault(a.user_id, a.correct)
    return sum(not ok for ok in first.values()) / len(first) if first else None


BUCKETS = ("full marks", "partial", "zero", "not gradable", "waiting")


def outcome_histogram(submissions: list[Any]) -> list[tuple[str, int]]:
    """Each learner's best attempt at an exercise, counted by outcome bucket."""
    best: dict[int, str] = {}
    rank = {name: i for i, name in enumerate(BUCKETS)}
    for sub in submissions:
        if sub.status == "graded" and sub.max_score:
            bucket = ("full marks" if sub.score >= sub.max_score
                      else "partial" if sub.score > 0 else "zero")
        elif sub.status == "not_gradable":
            bucket = "not gradable"
        else:
            bucket = "waiting"
        held = best.get(sub.user_id)
        if held is None or rank[bucket] < rank[held]:
            best[sub.user_id] = bucket
    counts = Counter(best.values())
    return [(name, counts.get(name, 0)) for name in BUCKETS]


def _submissions(session: Session, context: LmsContext) -> dict[int, list[Any]]:
    """Exercise submissions per user (plain rows, the columns the view shows)."""
    table = Submission.__table__
    placements = select(Placement.id).where(Placement.context_id == context.id)
    rows = session.execute(
        select(table.c.placement_id, table.c.user_id, table.c.attempt_number, table.c.status,
               table.c.score, table.c.max_score, table.c.created_at)
        .where(table.c.placement_id.in_(placements)).order_by(table.c.attempt_number))
    out: dict[int, list[Any]] = {}
    for row in rows:
        out.setdefault(row.user_id, []).append(row)
    return out


def latest_scores(session: Session, context: LmsContext) -> list[ScoreOutbox]:
    """The newest outbox row per (placement, learner): what a resend sends again."""
    rows = session.scalars(
        select(ScoreOutbox).join(Placement).where(Placement.context_id == context.id)
        .order_by(ScoreOutbox.id))
    latest: dict[tuple[int, int], ScoreOutbox] = {}
    for row in rows:
        latest[(row.placement_id, row.user_id)] = row
    return list(latest.values())
