"""A course project's ``run.py`` run as a learner runs it, for the project tests.

``python PROJECT/run.py ARGS`` in its own process, on CPU JAX, with the environment of every
run the course tools make (``course.tools.execute.child_env``) less any ``XLA_FLAGS`` of the
host (a project that needs devices sets its own count). It reads and writes the compilation
cache the suite's course tools share (``kept_cache_env``: ``PATHWAYS_CHECK_JAX_CACHE``, set by
scripts/pytest-suite.sh; unset, a cold run), where the content items compile the same
projects: the stages a test asserts are the program's behaviour, which a cached executable
does not change (``run.py`` counts compilations with ``jit``'s own in-memory cache).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from course.tools.execute import child_env, kept_cache_env


def run_project(project: Path, cwd: Path, *args: str,
                timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in child_env().items() if k != "XLA_FLAGS"}
    env.update(kept_cache_env())
    return subprocess.run([sys.executable, str(project / "run.py"), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)
