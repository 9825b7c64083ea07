"""`pathways consumer`: the composition root of the service's background side.

Each feature exposes its ticks and this module schedules them, with the fault tolerance of
every part in one place (``pathways.resilience``):

- results (this thread): ``submissions`` applies the results queue at least once (a message
  leaves the queue only after its transaction committed; application is idempotent) and its
  reaper re-sends expired or lost jobs; ``lti`` housekeeping purges old protocol rows;
- outbox (a thread of its own): ``outbox`` posts due scores concurrently, with a bound, so a
  slow LMS never holds result recording or the reaper.

A database, Redis or LMS fault is logged when it starts and when it ends; the part backs off and
goes on. Only a configuration error ends the process (exit 78: a supervisor must not restart
it). Each part writes a heartbeat row (``part_heartbeats``: ``consumer``, ``outbox``) that
``pathways status`` shows. docs/OPERATIONS.md says what each part promises and how to watch it.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

import click
from sqlalchemy.orm import Session, sessionmaker

from grading_contract.queues import Queues
from lti_service.core import health
from lti_service.lti.service import housekeeping, outbound
from lti_service.outbox.service.delivery import Deliveries, deliver_due
from lti_service.submissions import service
from lti_service.submissions.settings import GradingSettings
from pathways.resilience import EXIT_CONFIG, Guard, is_configuration, is_transient

if TYPE_CHECKING:
    from lti_service.core.config import Config

logger = logging.getLogger(__name__)
HEARTBEAT_S = 5.0


def delivery_for(cfg: Config) -> Callable[[Session], int]:
    """The outbox delivery (one session, one row after another) with the operator's delay and
    outbound policy."""
    return partial(deliver_due, base_delay=timedelta(seconds=cfg.outbox_retry_base_s),
                   rules=outbound.policy(cfg))


class Consumer:
    """The results loop and the outbox loop of one `pathways consumer` process."""

    def __init__(self, sessions: sessionmaker[Session], queues: Queues,
                 settings: GradingSettings, *, reap_every_s: float = 5.0,
                 outbox_every_s: float = 5.0, housekeeping_every_s: float = 60.0,
                 deliver: Callable[[Session], int] | None = None,
                 deliveries: Deliveries | None = None,
                 on_fault: Callable[[], None] | None = None) -> None:
        self.sessions = sessions
        self.queues = queues
        self.settings = settings
        self.reap_every_s = reap_every_s
        self.outbox_every_s = outbox_every_s
        self.housekeeping_every_s = housekeeping_every_s
        self.deliver = deliver
        self.deliveries = deliveries
        self.stopping = threading.Event()
        self.counts: dict[str, int] = {}
        self.outbox_error: Exception | None = None
        self.guard = Guard("consumer", self.stopping, on_fault=on_fault)
        self.outbox_guard = Guard("outbox", self.stopping, on_fault=on_fault)
        queues.on_message = self._on_message

    # -- the features' ticks -------------------------------------------------------------
    def _on_message(self, message: dict[str, Any]) -> None:
        try:
            with self.sessions() as session:
                done = service.handle_message(session, self.queues, self.settings, message)
        except Exception as exc:
            if is_transient(exc) or is_configuration(exc):
                raise  # the message stays queued; the guard backs off
            logger.exception("results message could not be applied; dropped")
            done = "failed"
        self.counts[done] = self.counts.get(done, 0) + 1

    def drain(self, limit: int = 100, max_s: float = 1.0) -> int:
        """Apply waiting results-queue messages (at most ``limit``, for about ``max_s``), each
        removed from the queue only once applied; return how many."""
        n = 0
        until = time.monotonic() + max_s
        while n < limit and time.monotonic() < until \
                and self.queues.apply_one(self.queues.results):
            n += 1
        return n

    def reap(self) -> int:
        with self.sessions() as session:
            return service.reap(session, self.queues, self.settings)

    def deliver_scores(self) -> int:
        if self.deliveries is not None:
            return self.deliveries.tick()
        if self.deliver is None:
            return 0
        with self.sessions() as session:
            return self.deliver(session)

    def housekeep(self) -> int:
        with self.sessions() as session:
            return housekeeping.purge(session)

    def beat(self, part: str, guard: Guard) -> None:
        health.beat(self.sessions, part, guard.state)

    # -- the schedule --------------------------------------------------------------------
    def _outbox_loop(self) -> None:
        try:
            self._outbox_ticks()
        except Exception as exc:  # noqa: BLE001 - a configuration error: the process ends
            self.outbox_error = exc
            self.stopping.set()

    def _outbox_ticks(self) -> None:
        next_beat = 0.0
        while not self.stopping.is_set():
            self.outbox_guard.call(self.deliver_scores, 0)
            if time.monotonic() >= next_beat:
                self.outbox_guard.call(lambda: self.beat("outbox", self.outbox_guard), None)
                next_beat = time.monotonic() + HEARTBEAT_S
            self.stopping.wait(self.outbox_every_s)

    def _results_pass(self, due: dict[str, float]) -> int:
        """One pass of the results thread: drain, then what is due; the messages applied."""
        busy = self.guard.call(self.drain, 0)
        now = time.monotonic()
        if now >= due["reap"]:
            self.guard.call(self.reap, 0)
            due["reap"] = time.monotonic() + self.reap_every_s
        if now >= due["housekeeping"]:
            self.guard.call(self.housekeep, 0)
            due["housekeeping"] = time.monotonic() + self.housekeeping_every_s
        if now >= due["beat"]:
            self.guard.call(lambda: self.beat("consumer", self.guard), None)
            due["beat"] = time.monotonic() + HEARTBEAT_S
        return busy

    def run(self, *, idle_sleep_s: float = 0.2) -> None:
        """Loop until SIGTERM/SIGINT (finishes the message in hand); a fault backs off, a
        configuration error propagates."""
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, lambda *_: self.stopping.set())
        outbox = threading.Thread(target=self._outbox_loop, name="outbox", daemon=True)
        recovered = self.guard.call(lambda: self.queues.recover(self.queues.results), 0)
        if recovered:
            logger.warning("put back %s results message(s) a stopped consumer had taken",
                           recovered)
        due = {"reap": 0.0, "housekeeping": 0.0, "beat": 0.0}
        logger.info("consumer running")
        try:
            while not self.stopping.is_set():
                busy = self._results_pass(due)
                if outbox.ident is None and not self.stopping.is_set():
                    outbox.start()  # after the first pass: results and the reaper come first
                if not busy:
                    self.stopping.wait(idle_sleep_s)
        finally:
            self.stopping.set()
            if outbox.is_alive():
                outbox.join(timeout=60)
            if self.deliveries is not None:
                self.deliveries.close()
        if self.outbox_error is not None:
            raise self.outbox_error
        logger.info("consumer stopped", extra=self.counts)


@click.command("consumer")
@click.option("--database-url", envvar="DATABASE_URL", default=None,
              help="Service database (default: the service's configuration).")
@click.option("--reap-every", type=float, default=5.0, show_default=True,
              help="Seconds between reaper passes over expired leases.")
@click.option("--outbox-every", type=float, default=2.0, show_default=True,
              help="Seconds between score outbox passes.")
@click.option("--outbox-concurrency", type=click.IntRange(1, 64), default=8, show_default=True,
              help="Score POSTs in flight at most.")
@click.option("--outbox-claim-s", type=click.FloatRange(5, 3600), default=60.0,
              show_default=True, help="Seconds after which a score claimed by a consumer that "
              "died mid-POST is posted again (longer than a POST can take).")
@click.option("--housekeeping-every", type=float, default=60.0, show_default=True,
              help="Seconds between purges of expired LTI launch data and old nonces.")
@click.option("--log-level", envvar="PATHWAYS_LOG_LEVEL", default="INFO", show_default=True)
def consumer(database_url: str | None, reap_every: float, outbox_every: float,
             outbox_concurrency: int, outbox_claim_s: float, housekeeping_every: float,
             log_level: str) -> None:
    """Record grading results, reap expired leases, post scores; until SIGTERM.

    Leases and tries are not options here: the web writes them and this process reaps them, so
    both read them from the service configuration (docs/CONFIGURATION.md)."""
    from lti_service.core.config import Config
    from lti_service.core.db import make_engine, make_session_factory
    from pathways import logs

    logs.configure(log_level)
    try:
        cfg = Config.from_env({"database_url": database_url} if database_url else None)
        engine = make_engine(cfg.database_url)
        assert cfg.queue is not None
        queues = Queues(cfg.queue)
    except Exception as exc:
        # Nothing is running yet: every error here is the configuration's.
        logger.error("consumer cannot start: %s", exc)
        click.echo(f"pathways consumer: configuration error: {exc}", err=True)
        sys.exit(EXIT_CONFIG)
    sessions = make_session_factory(engine)
    deliveries = Deliveries(sessions, concurrency=outbox_concurrency,
                            base_delay=timedelta(seconds=cfg.outbox_retry_base_s),
                            claim_lease=timedelta(seconds=outbox_claim_s),
                            rules=outbound.policy(cfg))
    loop = Consumer(sessions, queues, GradingSettings.from_config(cfg),
                    reap_every_s=reap_every, outbox_every_s=outbox_every,
                    housekeeping_every_s=housekeeping_every, deliveries=deliveries,
                    on_fault=engine.dispose)
    try:
        loop.run()
    except Exception as exc:
        if not is_configuration(exc):
            raise
        click.echo(f"pathways consumer: configuration error: {exc}", err=True)
        sys.exit(EXIT_CONFIG)
    finally:
        engine.dispose()
