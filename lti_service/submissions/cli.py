"""`pathways consumer`: record grading results, reap expired leases, post scores to the LMS."""

from __future__ import annotations

import click


@click.command("consumer")
@click.option("--database-url", envvar="DATABASE_URL", default=None,
              help="Service database (default: the service's configuration).")
@click.option("--reap-every", type=float, default=5.0, show_default=True,
              help="Seconds between reaper passes over expired leases.")
@click.option("--outbox-every", type=float, default=5.0, show_default=True,
              help="Seconds between score outbox deliveries.")
@click.option("--housekeeping-every", type=float, default=60.0, show_default=True,
              help="Seconds between purges of expired LTI launch data and old nonces.")
@click.option("--running-lease", type=float, default=30.0, show_default=True,
              help="Seconds a running job's lease lasts after each heartbeat.")
@click.option("--queued-lease", type=float, default=900.0, show_default=True,
              help="Seconds a job may wait in the queue before it is sent again.")
@click.option("--max-tries", type=click.IntRange(1, 20), default=3, show_default=True)
@click.option("--log-level", default="INFO", show_default=True)
def consumer(database_url: str | None, reap_every: float, outbox_every: float,
             housekeeping_every: float, running_lease: float, queued_lease: float,
             max_tries: int, log_level: str) -> None:
    """Run the service side of grading until SIGTERM."""
    from grader_worker import logs
    from grading_contract.config import load_queue_config
    from grading_contract.queues import Queues
    from lti_service.config import Config
    from lti_service.db import make_engine, make_session_factory
    from lti_service.services.outbox import deliver_due
    from lti_service.submissions.consumer import ResultsConsumer
    from lti_service.submissions.settings import GradingSettings

    logs.configure(log_level)
    cfg = Config.from_env({"database_url": database_url} if database_url else None)
    engine = make_engine(cfg.database_url)
    settings = GradingSettings(queued_lease_s=queued_lease, running_lease_s=running_lease,
                               max_tries=max_tries)
    loop = ResultsConsumer(make_session_factory(engine), Queues(load_queue_config()), settings,
                           reap_every_s=reap_every, outbox_every_s=outbox_every,
                           housekeeping_every_s=housekeeping_every,
                           deliver=deliver_due)
    try:
        loop.run()
    finally:
        engine.dispose()
