"""Run one submission in the sandbox: a private directory, the harness, the values pipe.

``SandboxRunner`` is the worker's only way to execute learner code. It holds no secret: it
knows the interpreter, the platform, the unprivileged uid and the harness script's path.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader_worker import compile_cache
from grader_worker.config import GraderConfig
from grader_worker.errors import SandboxUnavailable
from grader_worker.limits import Limits
from grader_worker.sandbox import bwrap, process, seccomp, site_view
from grader_worker.sweep import owner_tag

logger = logging.getLogger(__name__)

PROBE = ("import json, os, platform, sys\n"
         "import jax\n"
         "os.write(int(sys.argv[1]), json.dumps({'python': platform.python_version(), "
         "'jax': jax.__version__, 'backend': jax.default_backend(), "
         "'device_count': jax.device_count()}).encode())\n")


@dataclass(frozen=True)
class SandboxInfo:
    """What the sandbox's interpreter reports about itself (probed once per worker)."""

    python: str
    jax: str
    backend: str
    device_count: int


class SandboxRunner:
    """Cold runs: a fresh ``bwrap … python -I harness.py`` per submission."""

    def __init__(self, config: GraderConfig, harness: Path) -> None:
        self.config = config
        self.harness = harness.resolve()
        self.run_uid: int | None = config.run_uid if os.geteuid() == 0 else None
        self.tag = owner_tag(config.worker_name)
        """Prefix of this process's run directories and cgroups (swept after a SIGKILL)."""
        self.base = Path(tempfile.mkdtemp(prefix=self.tag))
        os.chmod(self.base, 0o711)
        self._info: SandboxInfo | None = None
        self.cache = _usable_cache(config.compile_cache)
        """The compilation cache every run reads (compile_cache.py), made here if missing."""

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)

    def run(self, source: str, names: tuple[str, ...], limits: Limits,
            calls: bytes | None = None, devices: int = 1) -> process.RunOutcome:
        """One cold run. Its directory is a tmpfs inside the sandbox (main.py copied in from a
        memfd), so nothing of it is on the host: there is nothing to clean up, whatever the
        program wrote, and nothing a learner can pre-create for a later run. ``calls`` (a PWC1
        file) makes the harness call the function exercise's function on those hidden inputs;
        it is copied in read-only next to the harness. ``devices``: logical CPU devices this run
        gets (XLA_FLAGS in its environment only). The compilation cache is read-only in it."""
        return self._cold(source, names, limits, calls, devices, self.cache, writable=False)

    def warm_compile_cache(self, programs: list[compile_cache.PublicProgram],
                           ceiling: Limits, concurrency: int = 1) -> compile_cache.Warmed:
        """Warm this host's compilation cache with ``programs`` (the course's public ones),
        dealt into ``concurrency`` shares, each run by ``_warm_share`` into a staging folder of
        its own."""
        if self.cache is None:
            return compile_cache.Warmed(0, 0, ())
        return compile_cache.warm(
            self.cache, programs, self.info().jax,
            lambda share, staging: self._warm_share(share, staging, ceiling), self.base,
            self.run_uid, concurrency)

    def _warm_share(self, share: list[compile_cache.PublicProgram], staging: Path,
                    ceiling: Limits) -> list[bool]:
        """Each program in a cold run of its own whose only writable path besides its tmpfs
        is ``staging`` (the warm runner forks a share from one warm parent instead); for
        each, whether it ended cleanly."""
        return [clean_exit(self._cold(p.source, (), ceiling.for_devices(p.devices), None,
                                      p.devices, staging, writable=True))
                for p in share]

    def _cold(self, source: str, names: tuple[str, ...], limits: Limits, calls: bytes | None,
              devices: int, cache: Path | None, *, writable: bool) -> process.RunOutcome:
        self._check_site()
        main_fd = _memfd("main.py", source.encode("utf-8"))
        filter_fd = _memfd("seccomp", seccomp.bpf_program())
        calls_fd = _memfd("calls", calls) if calls is not None else None
        extra = ["--calls", f"{bwrap.GRADER}/calls.bin"] if calls_fd is not None else []
        fds = (main_fd, filter_fd) + ((calls_fd,) if calls_fd is not None else ())
        try:
            def make(fd: int) -> list[str]:
                return bwrap.command(
                    python=self.config.python, workdir=None, harness=self.harness,
                    argv=["--names", ",".join(names), *extra, "--fd", str(fd),
                          f"{bwrap.WORK}/main.py"],
                    env=bwrap.sandbox_env(self.config.platform, self.run_uid, devices),
                    platform=self.config.platform, run_uid=self.run_uid, main_fd=main_fd,
                    seccomp_fd=filter_fd, disk_bytes=limits.disk_mb * 1024 * 1024,
                    packages=self.config.packages, calls_fd=calls_fd, cache=cache,
                    cache_writable=writable)

            return process.run(make, limits=limits, cgroup_root=self.config.cgroup_root,
                               name_prefix=self.tag, pass_fds=fds,
                               require_cgroup=not self.config.allow_no_cgroup)
        finally:
            for fd in fds:
                os.close(fd)

    def info(self) -> SandboxInfo:
        """Python/JAX/backend/device count inside the sandbox; raises SandboxUnavailable."""
        if self._info is None:
            self._info = self._probe()
        return self._info

    def _check_site(self) -> None:
        """Raise SandboxUnavailable here, before a run makes anything, when the interpreter
        lacks an allowed package (the probe is cached: one subprocess per worker)."""
        site_view.probe(self.config.python,
                        bwrap.site_packages(self.config.platform, self.config.packages))

    def _probe(self) -> SandboxInfo:
        self._check_site()
        workdir = Path(tempfile.mkdtemp(prefix="probe-", dir=self.base))
        script = workdir / "probe.py"
        script.write_text(PROBE)
        try:
            if self.run_uid is not None:
                os.chown(workdir, self.run_uid, self.run_uid)
            out = process.run(lambda fd: bwrap.command(
                python=self.config.python, workdir=workdir, harness=script, argv=[str(fd)],
                env=bwrap.sandbox_env(self.config.platform, self.run_uid),
                platform=self.config.platform, run_uid=self.run_uid,
                packages=self.config.packages),
                limits=Limits(wall_s=120, cpu_s=120), cgroup_root=self.config.cgroup_root,
                name_prefix=self.tag, require_cgroup=not self.config.allow_no_cgroup)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        try:
            data = json.loads(out.values)
            return SandboxInfo(str(data["python"]), str(data["jax"]), str(data["backend"]),
                               int(data["device_count"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise SandboxUnavailable(
                f"the sandbox cannot run JAX on this host (exit {out.returncode}): "
                f"{out.stderr.decode(errors='replace')[-800:]}; check that bubblewrap works "
                f"and JAX_PLATFORMS={self.config.platform} suits this host") from exc


def _usable_cache(folder: Path | None) -> Path | None:
    """``folder``, made if missing; None (runs compile everything) when it cannot be made or
    read: like the seed pool, the cache only ever saves time."""
    if folder is None:
        return None
    try:
        folder.mkdir(mode=0o755, parents=True, exist_ok=True)
        os.listdir(folder)
    except OSError as exc:
        logger.warning("compilation cache unusable; runs compile everything themselves",
                       extra={"folder": str(folder), "error": str(exc)})
        return None
    return folder.resolve()


def clean_exit(out: process.RunOutcome) -> bool:
    """The program ran to its end with exit status 0 (a warm-up run that counts as warmed):
    a cold run's as bwrap reported it, a warm run's as its parent did."""
    code = process.program_exit(out.status) if out.status else out.returncode
    return code == 0 and not out.timed_out


def _memfd(name: str, data: bytes) -> int:
    """An anonymous in-memory file holding ``data``, positioned at its start (bwrap reads it
    from there); nothing on disk to remove."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd

