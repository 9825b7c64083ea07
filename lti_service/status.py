"""`pathways status`: what an operator looks at first. The grading queue's depth, the oldest
job and score still pending, and each part's last heartbeat (consumer and outbox from the
database, workers from the queue's store). Exit 0 when every part beat within ``--stale``
seconds, 1 when one did not (or none ever did), 2 when the database cannot be read."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import datetime

import click
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from lti_service.core import health
from lti_service.core.models import utcnow
from lti_service.outbox.models import ScoreOutbox
from lti_service.submissions.models import Submission

EXPECTED = ("consumer", "outbox")


@dataclass(frozen=True)
class Beat:
    part: str
    at: datetime
    state: str
    where: str = ""


def _age(at: datetime | None, now: datetime) -> str:
    return "never" if at is None else f"{(now - at).total_seconds():.1f}s ago"


def report(session: Session, queue_depth: dict[str, int] | None, workers: list[Beat],
           now: datetime | None = None, stale_s: float = 30.0) -> tuple[list[str], bool]:
    """The lines of the report, and whether every part is alive."""
    now = now or utcnow()
    lines = []
    if queue_depth is None:
        lines.append("queue: unreachable")
    else:
        lines.append(f"queue: {queue_depth.get('grading', 0)} job(s) waiting for a worker, "
                     f"{queue_depth.get('results', 0)} result message(s) waiting")
    pending = session.scalar(select(func.count()).select_from(Submission).where(
        Submission.status.in_(("queued", "running")))) or 0
    oldest = session.scalars(select(Submission).where(
        Submission.status.in_(("queued", "running"))).order_by(Submission.created_at)).first()
    lines.append(f"jobs pending: {pending}" + (
        f"; oldest {oldest.id} ({oldest.status}, try {oldest.grading_try}) submitted "
        f"{_age(oldest.created_at, now)}" if oldest else ""))
    scores = session.scalar(select(func.count()).select_from(ScoreOutbox).where(
        ScoreOutbox.status == "pending")) or 0
    failed = session.scalar(select(func.count()).select_from(ScoreOutbox).where(
        ScoreOutbox.status == "failed")) or 0
    first = session.scalars(select(ScoreOutbox).where(ScoreOutbox.status == "pending")
                            .order_by(ScoreOutbox.created_at)).first()
    lines.append(f"scores pending: {scores}, failed: {failed}" + (
        f"; oldest #{first.id} queued {_age(first.created_at, now)}, {first.tries} tries"
        + (f", last error: {first.last_error[:120]}" if first.last_error else "")
        if first else ""))
    beats = [Beat(b.part, b.beat_at, b.state, f"{b.host}:{b.pid}")
             for b in health.beats(session)] + workers
    alive = True
    lines.append("parts:")
    seen = {b.part for b in beats}
    for part in EXPECTED:
        if part not in seen:
            lines.append(f"  {part:<28} never beat (is `pathways consumer` running?)")
            alive = False
    if not workers:
        lines.append(f"  {'worker':<28} none has beat (is a `pathways worker` running?)")
        alive = False
    for b in beats:
        late = (now - b.at).total_seconds() > stale_s
        alive = alive and not late
        lines.append(f"  {b.part:<28} last beat {_age(b.at, now)}"
                     f"{' STALE' if late else ''}  {b.state}  {b.where}")
    return lines, alive


@click.command("status")
@click.option("--stale", type=float, default=30.0, show_default=True,
              help="Seconds without a heartbeat after which a part counts as down.")
def status(stale: float) -> None:
    """Queue depth, oldest pending job and score, and each part's last heartbeat."""
    from grading_contract.queues import Queues
    from lti_service.core.config import Config
    from lti_service.core.db import make_engine, make_session_factory

    cfg = Config.from_env()
    depth, workers = None, []
    try:
        assert cfg.queue is not None
        queues = Queues(cfg.queue)
        depth = queues.pending()
        workers = [Beat(f"worker {part}", datetime.fromisoformat(b["at"]), b.get("state", ""))
                   for part, b in sorted(queues.beats().items())]
    except Exception as exc:  # noqa: BLE001 - reported, the rest still shown
        click.echo(f"queue: cannot read it ({type(exc).__name__}: {str(exc)[:200]})")
    engine = make_engine(cfg.database_url)
    try:
        with make_session_factory(engine)() as session:
            lines, alive = report(session, depth, workers, stale_s=stale)
    except Exception as exc:  # noqa: BLE001 - the database being down is the answer
        click.echo(f"database: cannot read it ({type(exc).__name__}: {str(exc)[:200]})")
        sys.exit(2)
    finally:
        engine.dispose()
    click.echo("\n".join(lines))
    sys.exit(0 if alive else 1)
