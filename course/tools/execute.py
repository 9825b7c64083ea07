"""Run one Python program in its own subprocess, on CPU JAX, with a timeout."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from course.tools import forkserver

DEFAULT_TIMEOUT_S = 180.0
JAX_CACHE_ENV = "PATHWAYS_CHECK_JAX_CACHE"
"""Where `course check`'s runs share JAX's persistent compilation cache: unset, a folder of
the run's own (removed at its end); a path, that folder (kept); ``off``, none."""


@dataclass(frozen=True)
class RunResult:
    returncode: int | None  # None: killed at the timeout
    stdout: str
    stderr: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def describe_failure(self, limit: int = 1200) -> str:
        if self.returncode is None:
            return f"timed out after {self.seconds:.0f} s"
        tail = self.stderr.strip()[-limit:]
        return f"exit status {self.returncode}" + (f":\n{tail}" if tail else "")


BLAS_ENV = {"OPENBLAS_NUM_THREADS": "1"}
"""NumPy's BLAS on one thread in every run, the grader's sandboxed ones too. OpenBLAS starts a
thread per host core when numpy is imported, and each spins ~0.1 s before it sleeps: CPU that
every cold process pays once per core of its host (0.1 s here on 2 cores, ~1.5 s a run on a
16-core grader, inside the run's own CPU time), for programs that compute with JAX (XLA has
its own threads), not with numpy's BLAS. One thread also makes a run's numpy alike on every
host."""


def child_env() -> dict[str, str]:
    """The environment of every run: CPU JAX, non-interactive matplotlib, no .pyc litter,
    numpy's BLAS on one thread (``BLAS_ENV``, unless the caller's environment sets it)."""
    env = {**BLAS_ENV, **os.environ}
    env.update(JAX_PLATFORMS="cpu", MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1",
               PYTHONUNBUFFERED="1")
    return env


def jax_cache_env(folder: str) -> dict[str, str]:
    """JAX's persistent compilation cache in ``folder``, for every compilation (JAX's defaults
    keep only those over a second). The key holds the program's HLO, the compile options,
    the XLA flags (the device count) and JAX's version, so runs that compile the same
    function share one compilation: the reference beside a learner's copy, a variant's run
    beside the solution's, the harness's own functions everywhere."""
    return {"JAX_COMPILATION_CACHE_DIR": folder,
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0"}


def _chosen_cache() -> str:
    """What ``JAX_CACHE_ENV`` says: "" (unset), "off", or a folder to keep."""
    chosen = os.environ.get(JAX_CACHE_ENV, "").strip()
    return "off" if chosen.lower() == "off" else chosen


def kept_cache_env() -> dict[str, str]:
    """The settings of the compilation cache ``JAX_CACHE_ENV`` names to keep, if it names one
    (an author's, or the test suite's): the build's notebook kernels share it with checks."""
    chosen = _chosen_cache()
    if chosen in ("", "off"):
        return {}
    Path(chosen).mkdir(parents=True, exist_ok=True)
    return jax_cache_env(chosen)


@contextmanager
def compile_cache(env: dict[str, str]) -> Iterator[dict[str, str]]:
    """``env`` with a compilation cache shared by the runs inside (``JAX_CACHE_ENV``). Only
    for trusted code (the course's own programs and checks): the grader shares none that a
    run can write (docs/SANDBOX.md), where one would carry one learner's executables into
    another's run and the references' executables into the sandbox."""
    if _chosen_cache() == "off":
        yield env
        return
    kept = kept_cache_env()
    if kept:
        yield {**env, **kept}
        return
    folder = tempfile.mkdtemp(prefix="pathways-jax-cache-")
    try:
        yield {**env, **jax_cache_env(folder)}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def shared_runs() -> Iterator[dict[str, str]]:
    """What `course check`'s runs share: one compilation cache (``compile_cache``) and one fork
    server started with it (``forkserver.prewarmed``). Yields the runs' environment."""
    with compile_cache(child_env()) as env, forkserver.prewarmed(env):
        yield env


def run_python(args: list[str], *, cwd: Path, timeout: float = DEFAULT_TIMEOUT_S,
               extra_env: dict[str, str] | None = None, kept_cache: bool = True) -> RunResult:
    """``python *args`` in ``cwd``; output captured as text. Inside
    ``course.tools.forkserver.prewarmed(env)`` a script is forked from a process that has
    imported JAX, and every run gets ``env``; outside, a run on its own (one item checked,
    a test's) shares the compilation cache ``JAX_CACHE_ENV`` names to keep, if any, unless
    ``kept_cache`` is False (``course record``: what it records is a cold run's, first-call
    timings included). ``extra_env`` is added for this run only."""
    server = forkserver.active()
    base = server.env if server is not None else {
        **child_env(), **(kept_cache_env() if kept_cache else {})}
    env = {**base, **(extra_env or {})}
    if server is not None and args and not args[0].startswith("-"):
        forked = server.run(args, cwd, timeout, extra_env)
        if forked is not None:
            return RunResult(*forked)
    start = time.monotonic()
    # Its own session: at the timeout the whole group goes, not just the direct child (a
    # program's own subprocesses would otherwise live on and hold the output pipes open).
    proc = subprocess.Popen([sys.executable, *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        return RunResult(None, out or "", err or "", time.monotonic() - start)
    return RunResult(proc.returncode, out, err, time.monotonic() - start)


PROBE = (
    "import datetime, json, platform, jax, jaxlib; print(json.dumps({"
    "'timestamp': datetime.datetime.now(datetime.UTC).isoformat(),"
    "'python': platform.python_version(), 'jax': jax.__version__,"
    "'jaxlib': jaxlib.__version__, 'backend': jax.default_backend(),"
    "'device_count': jax.device_count()}))"
)


def probe_environment(cwd: Path, timeout: float = DEFAULT_TIMEOUT_S) -> dict:
    """Python/JAX versions, backend and device count as a child process sees them."""
    import json

    result = run_python(["-c", PROBE], cwd=cwd, timeout=timeout)
    if not result.ok:
        raise RuntimeError(f"cannot probe the JAX environment: {result.describe_failure()}")
    return json.loads(result.stdout.strip().splitlines()[-1])
