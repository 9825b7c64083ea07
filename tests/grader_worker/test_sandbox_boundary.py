"""The sandbox boundary, beyond the corpus: what one run leaves is gone for the next, and the
system files a program needs are reachable."""

from __future__ import annotations

from grader_helpers import CANARY, CORPUS_LIMITS, FIXTURE_CHECKS, GOOD, make_job

from grader_worker.grading import grade
from grader_worker.result import GradingResult
from grader_worker.runner import SandboxRunner

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
