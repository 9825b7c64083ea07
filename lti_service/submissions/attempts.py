"""The code-attempt policy of a placement, per learner: its own limit (unlimited by default,
or N, separate from checkpoint attempts), the instructor's extra attempts and extensions, and
the sentence shown before submitting ("attempt 2 of 5, the best counts").

Only the learner's own doing is charged: a try lost to the host (``host_timeout``,
``infrastructure_error``) is retried and one that cannot be graded ends ``not_gradable``,
neither of which ``service.CHARGED`` counts.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from lti_service.core.models import Placement
from lti_service.submissions.models import Allowance, Submission

COUNTS = {"best": "the best counts", "last": "the last counts", "first": "the first counts"}


def allowance(session: Session, placement_id: int, user_id: int) -> Allowance | None:
    return session.get(Allowance, (placement_id, user_id))


def code_limit(placement: Placement, given: Allowance | None) -> int | None:
    """Graded code attempts this learner may make here (None: unlimited)."""
    if placement.code_attempts is None:
        return None
    return placement.code_attempts + (given.extra_attempts if given else 0)


def due(placement: Placement, given: Allowance | None) -> datetime | None:
    """When submissions close for this learner: their extension, else the placement's date."""
    if given is not None and given.due_at is not None:
        return given.due_at
    return placement.due_at


def attempt_line(used: int, limit: int | None, counting: str) -> str:
    """What the learner reads before submitting, e.g. "attempt 2 of 5, the best counts"."""
    counts = COUNTS.get(counting, f"the {counting} counts")
    if limit is not None and used >= limit:
        return f"all {limit} attempts used; {counts}"
    of = f" of {limit}" if limit is not None else " (no limit)"
    return f"attempt {used + 1}{of}, {counts}"


def counted_of(placement: Placement, rows: list[Submission]) -> Submission | None:
    """The attempt that counts among ``rows`` (one learner's, any order) under the placement's
    policy, as ``service.counted`` chooses it in the database; without a query."""
    graded = sorted((s for s in rows if s.status == "graded"
                     and s.exercise_id == placement.content_id), key=lambda s: s.attempt_number)
    if not graded:
        return None
    if placement.counting == "first":
        return graded[0]
    if placement.counting == "last":
        return graded[-1]
    return max(graded, key=lambda s: (s.score or 0.0, -s.attempt_number))
