"""The sandbox boundary, beyond the corpus: what one run leaves is gone for the next, and the
system files a program needs are reachable."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from grader_helpers import CANARY, CORPUS_LIMITS, FIXTURE_CHECKS, GOOD, make_job

from course.checks import HARNESS_PATH
from grader_worker.config import load_config
from grader_worker.grading import grade
from grader_worker.limits import Limits
from grader_worker.runner import SandboxRunner
from grader_worker.sandbox import process
from grading_contract.result import GradingResult

KEYCTL = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
KEY_SPEC_USER_KEYRING, KEYCTL_SEARCH, KEYCTL_READ = -4, 10, 11
def check(rc):
    if rc < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return rc
"""
PLANT = KEYCTL + f"""
check(libc.syscall(248, b"user", b"pathways-plant", b"{CANARY}", {len(CANARY)},
                   ctypes.c_long(KEY_SPEC_USER_KEYRING)))
"""
READ = KEYCTL + """
key = check(libc.syscall(250, KEYCTL_SEARCH, ctypes.c_long(KEY_SPEC_USER_KEYRING), b"user",
                         b"pathways-plant", 0))
buf = ctypes.create_string_buffer(256)
check(libc.syscall(250, KEYCTL_READ, key, buf, 256))
print("found", buf.value.decode())
"""


def _grade(runner: SandboxRunner, source: str) -> GradingResult:
    return grade(make_job(source), runner=runner, checks_for=lambda _: FIXTURE_CHECKS,
                 ceiling=CORPUS_LIMITS)


def test_a_key_left_by_one_run_is_not_read_by_the_next(runner) -> None:
    """All runs share one uid, so they would share its kernel keyring: keys are refused."""
    plant = _grade(runner, PLANT + GOOD.read_text())
    read = _grade(runner, READ + GOOD.read_text())
    assert plant.outcome == "sandbox_violation", (plant.feedback, plant.stderr)
    assert "system call" in plant.feedback
    assert read.outcome == "sandbox_violation", (read.feedback, read.stdout)
    assert CANARY not in read.stdout + read.stderr
    after = _grade(runner, GOOD.read_text())
    assert (after.outcome, after.score) == ("graded", 3.0), after.feedback


def test_system_files_under_etc_are_reachable(runner) -> None:
    """bwrap makes /etc 0700 when it creates it for a bind: certificates and the time zone
    must stay readable to the learner's uid."""
    source = ("import os\nassert 'openssl.cnf' in os.listdir('/etc/ssl')\n"
              "assert open('/etc/localtime', 'rb').read(4) == b'TZif'\n") + GOOD.read_text()
    result = _grade(runner, source)
    assert (result.outcome, result.score) == ("graded", 3.0), (result.feedback, result.stderr)


def test_run_directory_is_the_programs_and_small(runner) -> None:
    """The run's directory holds only main.py, read-only; the program can write next to it, up
    to the run's disk size."""
    source = ("import os\nassert os.listdir('.') == ['main.py'], os.listdir('.')\n"
              "try:\n    open('main.py', 'a')\nexcept PermissionError:\n    pass\n"
              "else:\n    raise SystemExit('main.py is writable')\n"
              "open('notes.txt', 'w').write('ok')\n"
              "st = os.statvfs('.')\nassert st.f_blocks * st.f_frsize <= 64 * 2**20, st\n"
              ) + GOOD.read_text()
    result = _grade(runner, source)
    assert (result.outcome, result.score) == ("graded", 3.0), (result.feedback, result.stderr)


def _runner_with(tmp_path: Path, packages: str) -> SandboxRunner:
    return SandboxRunner(load_config({"PATHWAYS_VAR_DIR": str(tmp_path),
                                      "PATHWAYS_GRADER_PACKAGES": packages}), HARNESS_PATH)


def test_optax_is_importable_by_default(runner) -> None:
    """Phase 03's lessons and the train-from-scratch project train with optax: a run imports it
    (and absl, which it requires) with no PATHWAYS_GRADER_PACKAGES, and one update runs."""
    source = ("import jax.numpy as jnp\nimport optax\n"
              "opt = optax.adam(0.1)\nparams = {'w': jnp.ones(2)}\n"
              "updates, _ = opt.update({'w': jnp.ones(2)}, opt.init(params), params)\n"
              "assert float(optax.apply_updates(params, updates)['w'][0]) < 1.0\n"
              ) + GOOD.read_text()
    result = _grade(runner, source)
    assert (result.outcome, result.score) == ("graded", 3.0), (result.feedback, result.stderr)


def test_only_allowed_distributions_are_importable(runner, tmp_path: Path) -> None:
    """pyyaml is installed next to jax: invisible by default, importable once allowed."""
    source = "import yaml\n" + GOOD.read_text()
    hidden = _grade(runner, source)
    assert hidden.outcome == "exception" and "No module named 'yaml'" in hidden.stderr
    allowing = _runner_with(tmp_path, "pyyaml")
    try:
        shown = _grade(allowing, source)
    finally:
        allowing.close()
    assert (shown.outcome, shown.score) == ("graded", 3.0), (shown.feedback, shown.stderr)


def test_a_missing_allowed_distribution_is_an_infrastructure_error(tmp_path: Path) -> None:
    missing = _runner_with(tmp_path, "no-such-distribution")
    try:
        result = _grade(missing, GOOD.read_text())
    finally:
        missing.close()
    assert result.outcome == "infrastructure_error"
    assert "no-such-distribution" in result.feedback and "not in your code" in result.feedback


def _zombie_children() -> list[str]:
    me, found = os.getpid(), []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            state, ppid = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
            if entry.name.isdigit() and state == "Z" and int(ppid) == me:
                found.append(entry.name)
    return found


def test_no_sandbox_init_is_left_a_zombie(runner) -> None:
    """bwrap may exit before reaping its pid namespace's init: orphaned, that init would stay
    a zombie of the worker when it is pid 1 of a container, one per run. The worker adopts
    and reaps them."""
    process.adopt_orphans()
    try:
        for source in ("import time\ntime.sleep(60)\n", GOOD.read_text()):
            grade(make_job(source), runner=runner, checks_for=lambda _: FIXTURE_CHECKS,
                  ceiling=Limits(wall_s=5, cpu_s=5))
        time.sleep(0.5)
        process.reap_sandbox_orphans()
        assert _zombie_children() == []
    finally:
        process.adopt_orphans(False)
