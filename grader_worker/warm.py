"""The warm runner: one sandboxed zygote per worker thread forks each run in fresh namespaces.

Measured cold: 1.1-1.9 s a run, mostly importing JAX. A parent that has imported JAX but never
initialised a backend can fork safely, so the zygote (sandbox/zygote.py) imports it once inside
the same bwrap sandbox as a cold run, and each run is forked from it.

Isolation equal to a cold run: each run gets its own mount, IPC and PID namespaces, a fresh
tmpfs /tmp, /dev/shm and home (a cold run's sizes; gone with the namespace), the rest of the
filesystem read-only, the seccomp filter, no
capabilities, and its own cgroup with the job's memory and pids limits (inside the warm
cgroup). The program cannot see or signal the zygote (another PID namespace) nor its own init
(another uid when the worker is root, as bwrap's pid 1 is root in a cold run).

The worker trusts nothing the zygote says: each reply must carry the request's run id and the
expected fields; a late, missing or malformed reply, or a zygote found dead or stopped before a
job, means the whole warm cgroup is killed and a new zygote started.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from pathlib import Path
from typing import Any

from grader_worker import compile_cache
from grader_worker.errors import SandboxUnavailable
from grader_worker.limits import Limits
from grader_worker.runner import SandboxRunner, clean_exit
from grader_worker.sandbox import process
from grader_worker.warm_parent import ProtocolError, Zygote

logger = logging.getLogger(__name__)


class WarmRunner(SandboxRunner):
    """Same contract as SandboxRunner.run; a zygote per calling thread, replaced when it is
    found dead or stopped before a job, or after any protocol error."""

    def __init__(self, *args: Any, ceiling: Limits | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ceiling = ceiling or Limits()
        self._local = threading.local()
        self._all: list[Zygote] = []
        self._lock = threading.Lock()
        self.replaced = 0

    def _zygote(self) -> Zygote:
        z: Zygote | None = getattr(self._local, "zygote", None)
        if z is not None and not z.healthy():
            logger.warning("warm zygote found dead or stopped; replacing it")
            self._discard(z)
            z = None
        if z is None:
            z = Zygote(self, self.ceiling)
            self._local.zygote = z
            with self._lock:
                self._all.append(z)
        return z

    def _discard(self, z: Zygote) -> None:
        self._local.zygote = None
        with self._lock:
            if z in self._all:
                self._all.remove(z)
            self.replaced += 1
        z.close()

    def run(self, source: str, names: tuple[str, ...], limits: Limits,
            calls: bytes | None = None, devices: int = 1) -> process.RunOutcome:
        z = self._zygote()
        try:
            out = z.run(source, names, limits, calls, devices)
        except ProtocolError as exc:
            logger.warning("warm zygote out of step; replacing it", extra={"error": str(exc)})
            self._discard(z)
            raise SandboxUnavailable(f"the warm parent failed during the run: {exc}") from exc
        except BaseException:
            self._discard(z)
            raise
        if z.broken:
            logger.warning("warm zygote did not report a run in time; replacing it")
            self._discard(z)
        return out

    def _warm_share(self, share: list[compile_cache.PublicProgram], staging: Path,
                    ceiling: Limits) -> list[bool]:
        """As the cold runner's, but the share's programs are forked from one warm parent
        (JAX imported once a share, not once a program) whose staging mount is writable; a
        parent that dies or falls out of step leaves the rest of its share unwarmed."""
        clean = [False] * len(share)
        z = Zygote(self, ceiling, staging=staging)
        try:
            for index, p in enumerate(share):
                clean[index] = clean_exit(z.run(p.source, (), ceiling.for_devices(p.devices),
                                                None, p.devices))
                if z.broken or not z.healthy():
                    break
        except ProtocolError as exc:
            logger.warning("warm-up parent out of step", extra={"error": str(exc)})
        finally:
            z.close()
        return clean

    def close(self) -> None:
        with self._lock:
            zygotes, self._all = self._all, []
        for z in zygotes:
            with contextlib.suppress(Exception):
                z.close()
        super().close()
