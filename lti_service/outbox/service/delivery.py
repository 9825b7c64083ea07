"""Post due ``score_outbox`` rows to the LMS through AGS: each score reaches the gradebook once,
and a score that cannot is visible with the LMS's reason.

What the LMS answers decides (``judge``, a pure function):

- any 2xx: delivered, whatever the body (Moodle and others answer ``200 text/plain OK`` or an
  empty body; pylti1p3 parsed every answer as JSON, failed, and re-posted the score forever);
- 401 or 403 to a stored token: the token is dropped and the POST made once more with a fresh
  one (``CachedServiceConnector.post``). A fresh token answered 401 is retried like a 5xx (fixing
  the platform's key or token URL is an operator's job that takes time); 403 is a refusal;
- 408, 425, 429, 5xx, a redirect, no answer (network, timeout), a failed token request: retried
  with exponential backoff (``base_delay * 2**(tries-1)`` capped at ``MAX_DELAY``, later if the
  LMS sends ``Retry-After``) until ``MAX_TRIES``, then ``failed``. ``base_delay`` is
  ``BASE_DELAY`` unless the operator sets ``OUTBOX_RETRY_BASE_S``;
- any other 4xx ("user not found", "invalid grade", "score already exists for the provided
  timestamp"): ``failed`` at once, with the LMS's message as a printable excerpt of
  ``ANSWER_CHARS`` (``excerpt_of``: the class view shows it). Posting the same score again
  would get the same answer.

A row with a later row of the same learner and placement (pending or delivered) is
``superseded``, not posted: the LMS keeps the latest score, and posting an older one after it
would be refused (an old timestamp) or, with a new timestamp, replace the newer value.

Each row is claimed before its POST (two consumers never post one score), commits on its own,
and nothing one row raises stops the others. ``Deliveries`` posts due rows concurrently, with a
bound, on threads of its own (the consumer runs it apart from result recording and the reaper).

An ambiguous outcome (no answer, a timeout, a 5xx, or a process that died mid-POST, seen as
``posting_since`` still set) may have reached the gradebook: the row is marked ``ambiguous``
and posted again as a *new* post (``resent_at`` = now, so a new AGS timestamp: the LMS keeps the
latest, the value is the same), and "score already exists" (Open edX, for a timestamp it has)
then means delivered, not failed. The instructor's resend (``requeue``) sets
``resent_at``, so the post carries a new AGS timestamp: an LMS keeps one score per timestamp and
Open edX answers a repeated one with 400. The token asks for the score scope only.
``pathways consumer`` calls ``deliver_due`` periodically. Every call to the LMS is
``lti.service.lms``'s (guarded, to the platform's origins only).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

import requests
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from lti_service.core.models import Placement, utcnow
from lti_service.lti.service import lms
from lti_service.lti.service.connector import ServiceAnswer
from lti_service.lti.service.outbound import OutboundPolicy
from lti_service.outbox.models import ScoreOutbox

log = logging.getLogger(__name__)
BASE_DELAY = timedelta(seconds=30)
MAX_DELAY = timedelta(hours=1)
MAX_TRIES = 30
"""About a day of retries (7 doubling delays, then hourly) before a score is marked failed."""
REASON_CHARS = 300
ANSWER_CHARS = 120
"""The most of an LMS's answer body a reason quotes (the class view shows reasons)."""
CLAIM_LEASE = timedelta(seconds=60)
"""Longer than a POST can take (the connector's timeout): a claim older than this belongs
to a process that died mid-POST."""
SCORE_SCOPE = lms.SCORE_SCOPE
RETRYABLE = frozenset({401, 408, 425, 429})
SUPERSEDED = "a later score of this learner replaces it in the gradebook"

Outcome = Literal["delivered", "retry", "failed"]


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    reason: str = ""
    ambiguous: bool = False
    """The POST may have reached the LMS (no answer, a timeout, a 5xx or 408)."""


def backoff(tries: int, base_delay: timedelta = BASE_DELAY) -> timedelta:
    return min(base_delay * (2 ** max(tries - 1, 0)), MAX_DELAY)


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS] + "…"


def excerpt_of(body: str) -> str:
    """What an LMS answered, as the instructor may see it: printable characters only, cut to
    ``ANSWER_CHARS`` (an LMS, or whatever a URL pointed at, chooses these bytes)."""
    text = " ".join("".join(c if c.isprintable() else " " for c in body[:4 * ANSWER_CHARS])
                    .split())
    return text if len(text) <= ANSWER_CHARS else text[:ANSWER_CHARS] + "…"


def judge(status: int, body: str) -> Verdict:
    """What an LMS's answer to a score POST means for the row (module docstring)."""
    if 200 <= status < 300:
        return Verdict("delivered")
    reason = _cut(f"LMS answered HTTP {status}: {excerpt_of(body)}")
    if 400 <= status < 500 and status not in RETRYABLE:
        return Verdict("failed", reason)
    return Verdict("retry", reason, ambiguous=status >= 500 or status == 408)


def already_there(verdict: Verdict) -> bool:
    """Open edX's answer to a timestamp it has: after an ambiguous POST, the score arrived."""
    return verdict.outcome == "failed" and "already exists" in verdict.reason.lower()


def retry_after(value: str | None) -> timedelta | None:
    """A ``Retry-After`` in seconds, bounded by ``MAX_DELAY`` (HTTP dates are ignored)."""
    if value and value.strip().isdigit():
        return min(timedelta(seconds=int(value.strip())), MAX_DELAY)
    return None


def _post(session: Session, row: ScoreOutbox, placement: Placement,
          rules: OutboundPolicy) -> ServiceAnswer:
    grade = (
        Grade()
        .set_score_given(row.score)
        .set_score_maximum(row.max_score)
        .set_activity_progress(row.activity_progress)
        .set_grading_progress(row.grading_progress)
        .set_user_id(row.user.sub)
        .set_timestamp(row.ags_timestamp.isoformat().replace("+00:00", "Z"))
    )
    if row.comment:
        grade.set_comment(row.comment)
    return lms.post_score(session, placement, grade.get_value(), rules)


def _try(session: Session, row: ScoreOutbox, placement: Placement,
         rules: OutboundPolicy) -> tuple[Verdict, str | None]:
    """One POST of the row; never raises (a bug in one row must not stop the others)."""
    try:
        answer = _post(session, row, placement, rules)
    except requests.RequestException as exc:
        # Only a connection never made is sure not to have reached the LMS.
        return Verdict("retry", _cut(f"LMS not reachable: {type(exc).__name__}"),
                       ambiguous=not isinstance(exc, requests.ConnectTimeout)), None
    except LtiServiceException as exc:  # the token request was refused
        status = exc.response.status_code
        return Verdict("retry", _cut(f"token request answered HTTP {status}: "
                                     f"{excerpt_of(exc.response.text)}")), None
    except (LtiException, ValueError, KeyError) as exc:  # e.g. a token answer without a token
        return Verdict("retry", _cut(f"token request failed: {type(exc).__name__}: "
                                     f"{excerpt_of(str(exc))}")), None
    except Exception as exc:
        log.exception("score %s: unexpected error while posting", row.id)
        session.rollback()
        return Verdict("retry", _cut(f"tool error: {type(exc).__name__}")), None
    retry_header = next((v for k, v in answer.headers.items() if k.lower() == "retry-after"),
                        None)
    return judge(answer.status, answer.text), retry_header


def _claim(session: Session, row: ScoreOutbox, now: datetime,
           lease: timedelta = CLAIM_LEASE) -> bool:
    """Take the row for this process before posting it: a second consumer that read it as due
    finds it claimed and skips it, so two processes never post one score. A process that dies
    mid-post leaves it due again after ``CLAIM_LEASE`` with ``posting_since`` set: that POST's
    outcome is unknown, so the next one is a new post (a new timestamp)."""
    died_mid_post = row.posting_since is not None
    taken = session.execute(
        update(ScoreOutbox)
        .where(ScoreOutbox.id == row.id, ScoreOutbox.status == "pending",
               ScoreOutbox.next_attempt_at <= now)
        .values(next_attempt_at=now + lease, posting_since=utcnow())
        .execution_options(synchronize_session=False))
    session.commit()
    if taken.rowcount != 1:  # type: ignore[attr-defined]
        return False
    session.refresh(row)
    if died_mid_post or row.ambiguous:
        # The LMS may hold the last timestamp already (Open edX refuses it again): post anew,
        # same value, a later timestamp (the LMS keeps the latest).
        row.ambiguous = True
        row.resent_at = utcnow()
        session.commit()
    return True


def _newer(session: Session, row: ScoreOutbox) -> bool:
    """Whether a later score of the same learner and placement is delivered or on its way."""
    return session.scalar(select(ScoreOutbox.id).where(
        ScoreOutbox.placement_id == row.placement_id, ScoreOutbox.user_id == row.user_id,
        ScoreOutbox.id > row.id,
        ScoreOutbox.status.in_(("pending", "delivered"))).limit(1)) is not None


def due_ids(session: Session, now: datetime, limit: int = 50) -> list[int]:
    """The rows due for a POST, oldest first."""
    ids = list(session.scalars(
        select(ScoreOutbox.id)
        .where(ScoreOutbox.status == "pending", ScoreOutbox.next_attempt_at <= now)
        .order_by(ScoreOutbox.next_attempt_at, ScoreOutbox.id)
        .limit(limit)))
    session.rollback()
    return ids


def deliver_due(session: Session, *, rules: OutboundPolicy, now: datetime | None = None,
                limit: int = 50, max_tries: int = MAX_TRIES,
                base_delay: timedelta = BASE_DELAY) -> int:
    """Post up to ``limit`` due rows one after another; return how many the LMS accepted
    (``Deliveries`` posts them concurrently). ``rules``: the operator's outbound policy."""
    now = now or utcnow()
    return sum(deliver_one(session, row_id, now=now, max_tries=max_tries,
                           base_delay=base_delay, rules=rules)
               for row_id in due_ids(session, now, limit))


def deliver_one(session: Session, row_id: int, *, now: datetime, rules: OutboundPolicy,
                max_tries: int = MAX_TRIES, base_delay: timedelta = BASE_DELAY,
                claim_lease: timedelta = CLAIM_LEASE) -> int:
    """Claim and post one row, record what the LMS answered; 1 when delivered."""
    row = session.get(ScoreOutbox, row_id)
    if row is None or not _claim(session, row, now, claim_lease):
        return 0
    if _newer(session, row):
        # The LMS keeps one score per learner and line item, the latest: an older row posted
        # after a newer one (concurrent posts, a retry) would be refused as an old timestamp,
        # or, retried with a new timestamp after an ambiguous outcome, replace the newer value.
        row.status, row.posting_since, row.last_error = "superseded", None, SUPERSEDED
        session.commit()
        return 0
    placement = session.get(Placement, row.placement_id)
    if placement is None or not placement.lineitem_url:
        row.status, row.posting_since = "no_lineitem", None
        row.last_error = ("the LMS sent no line item for this link: re-add it with the "
                          "deep-linking picker so the gradebook column exists, then resend")
        session.commit()
        return 0
    if placement.ags_scopes and SCORE_SCOPE not in placement.ags_scopes:
        verdict, wait = Verdict("failed", "the LMS did not grant this tool the AGS score "
                                          "scope for this link: ask its administrator"), None
    else:
        verdict, wait = _try(session, row, placement, rules)
    row.tries += 1
    row.posting_since = None
    if verdict.ambiguous:
        row.ambiguous = True
    if verdict.outcome == "delivered" or (row.ambiguous and already_there(verdict)):
        row.status, row.delivered_at, row.last_error = "delivered", utcnow(), ""
    elif verdict.outcome == "failed" and _newer(session, row):
        row.status, row.last_error = "superseded", SUPERSEDED
    elif verdict.outcome == "failed" or row.tries >= max_tries:
        row.status = "failed"
        row.last_error = verdict.reason if verdict.outcome == "failed" else _cut(
            f"gave up after {row.tries} tries: {verdict.reason}")
    else:
        delay = max(backoff(row.tries, base_delay), retry_after(wait) or timedelta(0))
        row.last_error, row.next_attempt_at = verdict.reason, now + delay
    if row.status != "delivered":
        log.warning("score %s %s (try %s): %s", row.id,
                    "failed" if row.status == "failed" else "not delivered", row.tries,
                    row.last_error)
    session.commit()
    return 1 if row.status == "delivered" else 0


class Deliveries:
    """The outbox's tick: due rows posted concurrently (at most ``concurrency`` POSTs at a
    time, each in its own session), so one slow LMS answer holds one slot, not the others."""

    def __init__(self, sessions: sessionmaker[Session], *, rules: OutboundPolicy,
                 concurrency: int = 8, max_tries: int = MAX_TRIES,
                 base_delay: timedelta = BASE_DELAY,
                 claim_lease: timedelta = CLAIM_LEASE) -> None:
        self.sessions = sessions
        self.rules = rules
        self.claim_lease = claim_lease
        self.concurrency = concurrency
        self.max_tries = max_tries
        self.base_delay = base_delay
        self.pool = ThreadPoolExecutor(concurrency, thread_name_prefix="outbox")

    def tick(self) -> int:
        """Post what is due (up to 4 rounds of the bound); raise the first fault after all."""
        now = utcnow()
        with self.sessions() as session:
            ids = due_ids(session, now, self.concurrency * 4)
        futures = [self.pool.submit(self._one, row_id, now) for row_id in ids]
        delivered, first_error = 0, None
        for future in futures:
            try:
                delivered += future.result()
            except Exception as exc:  # noqa: BLE001 - raised below, after every row ran
                first_error = first_error or exc
        if first_error is not None:
            raise first_error
        return delivered

    def _one(self, row_id: int, now: datetime) -> int:
        with self.sessions() as session:
            return deliver_one(session, row_id, now=now, max_tries=self.max_tries,
                               base_delay=self.base_delay, claim_lease=self.claim_lease,
                               rules=self.rules)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def requeue(session: Session, rows: Iterable[ScoreOutbox]) -> int:
    """Send these scores again at once with a new AGS timestamp (the instructor's "resend")."""
    count = 0
    now = utcnow()
    for row in rows:
        row.status = "pending"
        row.tries = 0
        row.next_attempt_at = now
        row.resent_at = now
        row.delivered_at = None
        row.posting_since = None
        count += 1
    session.flush()
    return count
