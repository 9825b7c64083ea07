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

from grader_worker.config import GraderConfig
from grader_worker.errors import SandboxUnavailable
from grader_worker.limits import Limits
from grader_worker.sandbox import bwrap, process

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


def write_calls(workdir: Path, calls: bytes | None, inside: str) -> list[str]:
    """Put the hidden inputs next to main.py; the harness reads and removes the file before
    the program runs. Returns the harness arguments (``inside``: the folder in the sandbox)."""
    if calls is None:
        return []
    (workdir / "calls.bin").write_bytes(calls)
    return ["--calls", f"{inside}/calls.bin"]


class SandboxRunner:
    """Cold runs: a fresh ``bwrap … python -I harness.py`` per submission."""

    def __init__(self, config: GraderConfig, harness: Path) -> None:
        self.config = config
        self.harness = harness.resolve()
        self.run_uid: int | None = config.run_uid if os.geteuid() == 0 else None
        self.base = Path(tempfile.mkdtemp(prefix="pathways-runs-"))
        os.chmod(self.base, 0o711)
        self._info: SandboxInfo | None = None

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)

    def run(self, source: str, names: tuple[str, ...], limits: Limits,
            calls: bytes | None = None) -> process.RunOutcome:
        """Run ``source`` under the harness; ``calls`` (a PWC1 file) makes the harness call
        the function exercise's function on those hidden inputs."""
        workdir = Path(tempfile.mkdtemp(prefix="run-", dir=self.base))
        try:
            (workdir / "main.py").write_text(source, encoding="utf-8")
            extra = write_calls(workdir, calls, bwrap.WORK)
            if self.run_uid is not None:
                os.chown(workdir, self.run_uid, self.run_uid)
                os.chmod(workdir, 0o700)

            def make(fd: int) -> list[str]:
                return self._command(workdir, ["--names", ",".join(names), *extra, "--fd",
                                               str(fd), f"{bwrap.WORK}/main.py"])

            return process.run(make, limits=limits, cgroup_root=self.config.cgroup_root)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def info(self) -> SandboxInfo:
        """Python/JAX/backend/device count inside the sandbox; raises SandboxUnavailable."""
        if self._info is None:
            self._info = self._probe()
        return self._info

    def _command(self, workdir: Path, argv: list[str], harness: Path | None = None) -> list[str]:
        return bwrap.command(python=self.config.python, workdir=workdir,
                             harness=harness or self.harness, argv=argv,
                             env=bwrap.sandbox_env(self.config.platform, self.run_uid),
                             platform=self.config.platform, run_uid=self.run_uid)

    def _probe(self) -> SandboxInfo:
        workdir = Path(tempfile.mkdtemp(prefix="probe-", dir=self.base))
        script = workdir / "probe.py"
        script.write_text(PROBE)
        try:
            if self.run_uid is not None:
                os.chown(workdir, self.run_uid, self.run_uid)
            out = process.run(lambda fd: self._command(workdir, [str(fd)], harness=script),
                              limits=Limits(wall_s=120, cpu_s=120), cgroup_root=None)
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
