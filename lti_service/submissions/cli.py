"""`pathways consumer`: record grading results, reap expired leases, post scores to the LMS.

Leases and tries are not options here: the web writes them and this process reaps them, so both
read them from the service configuration (PATHWAYS_QUEUED_LEASE_S, PATHWAYS_RUNNING_LEASE_S,
PATHWAYS_GRADING_MAX_TRIES; docs/CONFIGURATION.md), as is the outbox's first retry delay
(OUTBOX_RETRY_BASE_S).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from lti_service.core.config import Config


def delivery_for(cfg: Config) -> Callable[[Session], int]:
    """The outbox delivery the consumer runs, with the operator's retry delay."""
    from lti_service.lti.service.outbound import policy
    from lti_service.outbox.service.delivery import deliver_due

    return partial(deliver_due, base_delay=timedelta(seconds=cfg.outbox_retry_base_s),
                   rules=policy(cfg))


@click.command("consumer")
@click.option("--database-url", envvar="DATABASE_URL", default=None,
              help="Service database (default: the service's configuration).")
@click.option("--reap-every", type=float, default=5.0, show_default=True,
              help="Seconds between reaper passes over expired leases.")
@click.option("--outbox-every", type=float, default=5.0, show_default=True,
              help="Seconds between score outbox deliveries.")
@click.option("--housekeeping-every", type=float, default=60.0, show_default=True,
              help="Seconds between purges of expired LTI launch data and old nonces.")
@click.option("--log-level", envvar="PATHWAYS_LOG_LEVEL", default="INFO", show_default=True)
def consumer(database_url: str | None, reap_every: float, outbox_every: float,
             housekeeping_every: float, log_level: str) -> None:
    """Run the service side of grading until SIGTERM."""
    from grading_contract.config import load_queue_config
    from grading_contract.queues import Queues
    from lti_service.core.config import Config
    from lti_service.core.db import make_engine, make_session_factory
    from lti_service.submissions.consumer import ResultsConsumer
    from lti_service.submissions.settings import GradingSettings
    from pathways import logs

    logs.configure(log_level)
    cfg = Config.from_env({"database_url": database_url} if database_url else None)
    engine = make_engine(cfg.database_url)
    loop = ResultsConsumer(make_session_factory(engine), Queues(load_queue_config()),
                           GradingSettings.from_config(cfg), reap_every_s=reap_every,
                           outbox_every_s=outbox_every, housekeeping_every_s=housekeeping_every,
                           deliver=delivery_for(cfg))
    try:
        loop.run()
    finally:
        engine.dispose()
