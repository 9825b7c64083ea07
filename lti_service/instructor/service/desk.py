"""The grading desk of one exercise placement: the whole roster (those who never opened it
too, by name), each learner's attempts with code, output, per-check feedback, variant and
timing, and what the instructor can change: extra attempts, an extension, a manual score.

No Flask; the instructor blueprint's guard resolved the placement and the learner."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from lti_service.core.models import LmsContext, LmsUser, Placement, utcnow
from lti_service.lti.service.launches import is_instructor
from lti_service.submissions import attempts, manual, service
from lti_service.submissions.models import Allowance, CodeRun, ManualScore, Submission


@dataclass
class DeskRow:
    """One learner of the roster at one placement."""

    user: LmsUser
    name: str
    email: str
    submissions: list[Submission] = field(default_factory=list)
    allowance: Allowance | None = None
    manual: ManualScore | None = None
    counted: Submission | None = None
    runs: int = 0

    @property
    def used(self) -> int:
        return sum(s.status in service.CHARGED for s in self.submissions)

    @property
    def opened(self) -> bool:
        return bool(self.submissions or self.runs)

    def limit(self, placement: Placement) -> int | None:
        return attempts.code_limit(placement, self.allowance)

    def due(self, placement: Placement) -> datetime | None:
        return attempts.due(placement, self.allowance)

    @property
    def score(self) -> tuple[float, float] | None:
        """The placement's score for this learner: the instructor's, else the counted one."""
        if self.manual is not None:
            return self.manual.score, self.manual.max_score
        if self.counted is not None and self.counted.max_score:
            return self.counted.score or 0.0, self.counted.max_score
        return None


def learners(session: Session, context: LmsContext,
             members: list[dict[str, Any]]) -> list[LmsUser]:
    """The roster's learners as users of the tool, in roster order: a learner who never
    launched gets a row (name and email from the roster) so the desk can give them attempts,
    an extension or a score. Names are refreshed from the roster; commits."""
    known = {u.sub: u for u in session.scalars(
        select(LmsUser).where(LmsUser.platform_id == context.platform_id))}
    out = []
    for member in members:
        sub = str(member.get("user_id") or "")[:255]
        if not sub or is_instructor(list(member.get("roles") or [])):
            continue
        user = known.get(sub)
        if user is None:
            user = known[sub] = LmsUser(platform_id=context.platform_id, sub=sub)
            session.add(user)
        name = str(member.get("name") or "")[:255]
        if name and user.name != name:
            user.name = name
        email = str(member.get("email") or "")
        if 0 < len(email) <= 255 and user.email != email:
            user.email = email
        out.append(user)
    session.commit()
    return out


def rows(session: Session, placement: Placement, users: list[LmsUser]) -> list[DeskRow]:
    """One row per learner (roster order), with their attempts here, newest first."""
    ids = [u.id for u in users]
    subs: dict[int, list[Submission]] = {}
    for s in session.scalars(select(Submission).where(
            Submission.placement_id == placement.id, Submission.user_id.in_(ids))
            .order_by(Submission.attempt_number.desc())):
        subs.setdefault(s.user_id, []).append(s)
    given = {a.user_id: a for a in session.scalars(select(Allowance).where(
        Allowance.placement_id == placement.id))}
    manuals: dict[int, ManualScore] = {}
    for m in session.scalars(select(ManualScore).where(
            ManualScore.placement_id == placement.id).order_by(ManualScore.id)):
        manuals[m.user_id] = m
    ran = dict(session.execute(select(CodeRun.user_id, func.count()).where(
        CodeRun.placement_id == placement.id).group_by(CodeRun.user_id)).all())
    out = []
    for user in users:
        mine = subs.get(user.id, [])
        out.append(DeskRow(user, user.name or user.sub, user.email, mine, given.get(user.id),
                           manuals.get(user.id), attempts.counted_of(placement, mine),
                           ran.get(user.id, 0)))
    return out


def row_of(session: Session, placement: Placement, user: LmsUser) -> DeskRow:
    return rows(session, placement, [user])[0]


def manual_history(session: Session, placement: Placement, user: LmsUser) -> list[ManualScore]:
    return manual.history(session, placement.id, user.id)


def give(session: Session, placement: Placement, user: LmsUser, *, extra_attempts: int,
         due_at: datetime | None, reason: str) -> Allowance:
    """Give the learner ``extra_attempts`` more (added to what they had; negative takes some
    back, never below zero) and, when given, their own due date; commits."""
    row = session.get(Allowance, (placement.id, user.id))
    if row is None:
        row = Allowance(placement_id=placement.id, user_id=user.id, extra_attempts=0, reason="")
        session.add(row)
    row.extra_attempts = max(0, (row.extra_attempts or 0) + extra_attempts)
    if due_at is not None:
        row.due_at = due_at
    row.reason = reason.strip()[:500]
    row.updated_at = utcnow()
    session.commit()
    return row


def set_due(session: Session, placement: Placement, due_at: datetime | None) -> None:
    """The placement's due date for everyone (None: open); commits."""
    placement.due_at = due_at
    session.commit()
