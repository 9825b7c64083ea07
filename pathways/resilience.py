"""How every long-running part (consumer, outbox, worker) lives through a transient fault.

A part's loop calls each of its ticks through ``Guard.call``: a database, Redis or network
error that can pass (a restart, a failover, a full disk being freed) is logged once when it
starts, then the part waits (exponential backoff with jitter, capped) and tries again; when it
passes, one line says how long it lasted. A configuration error (``ConfigurationError``, the
grading key, a bad URL) ends the process with ``EXIT_CONFIG`` (78, EX_CONFIG): restarting
cannot fix it, so supervisors (``make demo``, ``stack.sh``, systemd's
``RestartPreventExitStatus=``) do not restart it. Anything else is a bug in one tick: logged
with its traceback, backed off the same way, never the end of the process.

Imports no part: the grader uses it too (it never imports the service or a database library),
so errors are told apart by their class names.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

logger = logging.getLogger(__name__)
EXIT_CONFIG = 78
T = TypeVar("T")

# (module prefix, class name) of errors that pass: a server restarting, a connection dropped.
_TRANSIENT = {
    ("sqlalchemy", "OperationalError"), ("sqlalchemy", "InterfaceError"),
    ("sqlalchemy", "DisconnectionError"), ("sqlalchemy", "TimeoutError"),
    ("sqlalchemy", "PendingRollbackError"),
    ("psycopg", "OperationalError"), ("psycopg", "InterfaceError"),
    ("sqlite3", "OperationalError"),
    ("redis", "ConnectionError"), ("redis", "TimeoutError"), ("redis", "BusyLoadingError"),
    ("redis", "ReadOnlyError"), ("redis", "TryAgainError"),
    ("requests", "ConnectionError"), ("requests", "Timeout"),
    ("builtins", "ConnectionError"), ("builtins", "TimeoutError"), ("builtins", "OSError"),
}
_CONFIG = {("grading_contract", "KeyConfigError"), ("sqlalchemy", "ArgumentError"),
           ("sqlalchemy", "NoSuchModuleError"), ("pathways", "ConfigurationError")}


class ConfigurationError(Exception):
    """A setting that no retry can fix; the message names the variable."""


def _matches(exc: BaseException, table: set[tuple[str, str]]) -> bool:
    for cls in type(exc).__mro__:
        module = (cls.__module__ or "").split(".")[0]
        if (module, cls.__name__) in table:
            return True
    return False


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` is a fault that passes (a server down, a dropped connection)."""
    return _matches(exc, _TRANSIENT) or any(
        is_transient(inner) for inner in (exc.__cause__, exc.__context__)
        if inner is not None and inner is not exc and not isinstance(inner, KeyboardInterrupt))


def is_configuration(exc: BaseException) -> bool:
    return _matches(exc, _CONFIG)


@dataclass
class Backoff:
    """Exponential delays with full jitter: ``base * 2**n`` capped at ``cap``."""

    base_s: float = 0.5
    cap_s: float = 10.0
    failures: int = 0

    def next_delay(self) -> float:
        self.failures += 1
        ceiling = min(self.cap_s, self.base_s * 2 ** (self.failures - 1))
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    def reset(self) -> None:
        self.failures = 0


@dataclass
class Guard:
    """One part's fault handling: ``call`` a tick; on a fault, log it once, wait, go on."""

    part: str
    stopping: threading.Event = field(default_factory=threading.Event)
    backoff: Backoff = field(default_factory=Backoff)
    on_fault: Callable[[], None] | None = None
    """Called after each fault (e.g. drop the database pool's dead connections)."""
    since: float | None = None
    state: str = "ok"
    faults: int = 0

    def call(self, tick: Callable[[], T], default: T) -> T:
        """Run ``tick``; after a fault return ``default`` once the backoff delay has passed.
        A configuration error propagates (the process must end)."""
        try:
            value = tick()
        except Exception as exc:  # noqa: BLE001 - every fault is handled here, once
            if is_configuration(exc):
                raise
            self._fault(exc)
            return default
        if self.since is not None:
            logger.warning("%s recovered after %.1fs", self.part, time.monotonic() - self.since,
                           extra={"part": self.part, "faults": self.faults})
            self.since = None
        self.backoff.reset()
        self.state = "ok"
        return value

    def _fault(self, exc: Exception) -> None:
        self.faults += 1
        delay = self.backoff.next_delay()
        what = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
        transient = is_transient(exc)
        self.state = (f"{'waiting' if transient else 'failing'} ({what[:200]}), "
                      f"retrying in {delay:.1f}s")
        if self.since is None:
            self.since = time.monotonic()
            if transient:
                logger.warning("%s: %s; backing off and retrying", self.part, what,
                               extra={"part": self.part})
            else:
                logger.exception("%s: unexpected error; backing off and retrying", self.part,
                                 extra={"part": self.part})
        elif self.backoff.failures % 10 == 0:
            logger.warning("%s: still failing after %.0fs: %s", self.part,
                           time.monotonic() - self.since, what, extra={"part": self.part})
        if self.on_fault is not None:
            try:
                self.on_fault()
            except Exception:  # noqa: BLE001 - best effort clean-up of dead connections
                logger.debug("on_fault failed", exc_info=True)
        self.stopping.wait(delay)


def retry(part: str, action: Callable[[], T], *, stopping: threading.Event | None = None,
          give_up_s: float = 600.0) -> T:
    """Run ``action`` until it succeeds, backing off on transient faults, for up to
    ``give_up_s`` (then, or on any other error, the last error is raised)."""
    backoff = Backoff()
    started = time.monotonic()
    stop = stopping or threading.Event()
    while True:
        try:
            return action()
        except Exception as exc:
            if not is_transient(exc) or time.monotonic() - started > give_up_s or stop.is_set():
                raise
            delay = backoff.next_delay()
            if backoff.failures == 1:
                logger.warning("%s: %s; retrying", part, type(exc).__name__,
                               extra={"part": part})
            stop.wait(delay)
