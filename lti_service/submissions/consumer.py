"""The service-side loop of `pathways consumer`: results in, expired leases out, scores sent.

One process: it drains the results queue (each message is one short transaction), runs the
reaper every ``reap_every_s``, posts due outbox rows through
``lti_service.outbox.service.delivery.deliver_due`` every ``outbox_every_s`` and purges expired LTI
protocol rows (``lti_service.lti.service.housekeeping``) every ``housekeeping_every_s``.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from grading_contract.queues import Queues
from lti_service.lti.service import housekeeping
from lti_service.submissions import service
from lti_service.submissions.settings import GradingSettings

logger = logging.getLogger(__name__)


class ResultsConsumer:
    def __init__(self, sessions: sessionmaker[Session], queues: Queues,
                 settings: GradingSettings, *, reap_every_s: float = 5.0,
                 outbox_every_s: float = 5.0, housekeeping_every_s: float = 60.0,
                 deliver: Callable[[Session], int] | None = None) -> None:
        self.sessions = sessions
        self.queues = queues
        self.settings = settings
        self.reap_every_s = reap_every_s
        self.outbox_every_s = outbox_every_s
        self.housekeeping_every_s = housekeeping_every_s
        self.deliver = deliver
        self.stopping = threading.Event()
        self.counts: dict[str, int] = {}
        queues.on_message = self._on_message

    def _on_message(self, message: dict[str, Any]) -> None:
        with self.sessions() as session:
            done = service.handle_message(session, self.queues, self.settings, message)
        self.counts[done] = self.counts.get(done, 0) + 1

    def drain(self, limit: int = 100, max_s: float = 1.0) -> int:
        """Apply waiting results-queue messages (at most ``limit``, for about ``max_s``: a
        blocking Redis dequeue never runs dry while heartbeats flow); return how many."""
        n = 0
        until = time.monotonic() + max_s
        while n < limit and time.monotonic() < until \
                and self.queues.process_one(self.queues.results):
            n += 1
        return n

    def reap(self) -> int:
        with self.sessions() as session:
            return service.reap(session, self.queues, self.settings)

    def deliver_scores(self) -> int:
        if self.deliver is None:
            return 0
        with self.sessions() as session:
            try:
                return self.deliver(session)
            except Exception:  # noqa: BLE001 - the LMS path must not stop grading
                logger.exception("score delivery failed; will retry")
                return 0

    def housekeep(self) -> int:
        with self.sessions() as session:
            try:
                return housekeeping.purge(session)
            except Exception:  # noqa: BLE001 - a failed purge must not stop grading
                logger.exception("housekeeping failed; will retry")
                return 0

    def run(self, *, idle_sleep_s: float = 0.2) -> None:
        """Loop until SIGTERM/SIGINT (finishes the message in hand)."""
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self.stopping.set())
        next_reap = next_outbox = next_housekeeping = 0.0
        logger.info("consumer running", extra={"pending": self.queues.pending()})
        while not self.stopping.is_set():
            busy = self.drain()
            now = time.monotonic()
            if now >= next_reap:
                self.reap()
                next_reap = now + self.reap_every_s
            if now >= next_outbox:
                self.deliver_scores()
                next_outbox = now + self.outbox_every_s
            if now >= next_housekeeping:
                self.housekeep()
                next_housekeeping = now + self.housekeeping_every_s
            if not busy:
                self.stopping.wait(idle_sleep_s)
        logger.info("consumer stopped", extra=self.counts)
