"""The warm runner (PATHWAYS_GRADER_WARM=1): same outcomes as cold runs, and nothing of one
run (files, processes) survives into the next run of the same warm parent."""

from __future__ import annotations

import dataclasses
import os
import resource
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from grader_helpers import (
    CANARY,
    CORPUS,
    CORPUS_LIMITS,
    FIXTURE_CHECKS,
    GOOD,
    HERE,
    corpus_job,
    make_job,
)

from course.checks import HARNESS_PATH
from grader_worker.config import load_config
from grader_worker.grading import grade
from grader_worker.runner import SandboxRunner
from grader_worker.warm import WarmRunner
from grading_contract.result import GradingResult
from tests.blas_probe import BLAS_THREADS

LEAVE_BEHIND = """
import subprocess
open("/home/learner/left-behind.txt", "w").write("run A")
open("/tmp/left-behind.txt", "w").write("run A")
subprocess.Popen(["/bin/sh", "-c", "sleep 300"], start_new_session=True)
"""

LOOK_AROUND = """
import glob
import os
found = glob.glob("/home/learner/**", recursive=True) + glob.glob("/tmp/**", recursive=True)
assert not [f for f in found if "left-behind" in f], found
for pid in (p for p in os.listdir("/proc") if p.isdigit()):
    try:
        cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        continue
    assert b"sleep" not in cmdline, cmdline
"""


_RUNNERS: list[WarmRunner] = []
"""Every warm runner of this module that is open (their zygotes are expected processes)."""


def _open_runner() -> WarmRunner:
    r = WarmRunner(load_config({"PATHWAYS_VAR_DIR": "var"}), HARNESS_PATH,
                   ceiling=CORPUS_LIMITS)
    _RUNNERS.append(r)
    return r


def _close_runner(r: WarmRunner) -> None:
    _RUNNERS.remove(r)
    r.close()


@pytest.fixture(scope="module")
def warm() -> Iterator[WarmRunner]:
    r = _open_runner()
    yield r
    _close_runner(r)


def _grade(runner: WarmRunner, source: str) -> GradingResult:
    return grade(make_job(source), runner=runner, checks_for=lambda _: FIXTURE_CHECKS,
                 ceiling=CORPUS_LIMITS)


def test_warm_runs_score_and_reuse_the_parent(warm: WarmRunner) -> None:
    first, second = _grade(warm, GOOD.read_text()), _grade(warm, GOOD.read_text())
    assert (first.outcome, first.score, second.outcome, second.score) == (
        "graded", 3.0, "graded", 3.0), (first.feedback, first.stderr)
    assert len(warm._all) == 1, "both runs forked from one warm parent"


def test_nothing_of_a_run_survives_into_the_next(warm: WarmRunner) -> None:
    left = _grade(warm, LEAVE_BEHIND + GOOD.read_text())
    assert left.outcome == "graded", (left.feedback, left.stderr)
    looked = _grade(warm, LOOK_AROUND + GOOD.read_text())
    assert looked.outcome == "graded" and looked.score == 3.0, (looked.feedback, looked.stderr)


@pytest.mark.parametrize("name, outcomes", [
    # timeout, or host_timeout where a loaded host gave it under 0.9 x its CPU in the wall time
    ("infinite_loop", {"timeout", "host_timeout"}), ("huge_output", {"output_limit"}),
    ("memory_bomb_tmpfs", {"memory_limit", "sandbox_violation"}), ("memory_bomb", {"memory_limit"}),
    ("kill_parent", {"sandbox_violation"}), ("kill_own_group", {"sandbox_violation"}),
    ("network_connect", {"sandbox_violation"}), ("write_outside", {"sandbox_violation"}),
])
def test_hostile_runs_fail_clearly_and_the_next_run_works(warm: WarmRunner, name: str,
                                                          outcomes: set[str]) -> None:
    result = _grade(warm, (HERE / "hostile" / f"{name}.py").read_text())
    assert result.outcome in outcomes, (result.outcome, result.feedback, result.stderr)
    assert result.score == 0.0
    after = _grade(warm, GOOD.read_text())
    assert after.outcome == "graded" and after.score == 3.0, (after.feedback, after.stderr)


def _run_uid_processes(runner: WarmRunner) -> set[int]:
    """This test's descendants running as a run uid (program or init) that are not a live
    zygote's own, of any runner here (other engineers' sandboxes on this machine use the same
    uid)."""
    uids = {str(runner.config.run_uid), str(runner.config.run_uid - 1)}
    keep = {pid for r in _RUNNERS for z in r._all for pid in z.keep}
    parent: dict[int, int] = {}
    uid: dict[int, str] = {}
    for entry in (e for e in os.listdir("/proc") if e.isdigit()):
        try:
            with open(f"/proc/{entry}/status") as handle:
                fields = dict(line.split(":", 1) for line in handle if ":" in line)
        except OSError:
            continue
        parent[int(entry)] = int(fields["PPid"])
        uid[int(entry)] = fields["Uid"].split()[0]
    found = set()
    for pid, real in uid.items():
        ancestor = pid
        while ancestor > 1 and ancestor != os.getpid():
            ancestor = parent.get(ancestor, 0)
        if ancestor == os.getpid() and real in uids and pid not in keep:
            found.add(pid)
    return found


def _assert_clean(runner: WarmRunner) -> None:
    """No process of a run left, no file in a zygote's home, no run cgroup left."""
    deadline = time.monotonic() + 5
    while _run_uid_processes(runner) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _run_uid_processes(runner)
    for z in runner._all:
        assert not list(z.home.iterdir())
        assert {d.name for parent in z.group.dirs for d in parent.iterdir() if d.is_dir()} == {
            "zygote"}


SHM_FILL = """
import ctypes, mmap
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.restype = ctypes.c_int
made = 0
while made < 4096 and libc.shmget(0x5057 + made, 64 << 20, 0o1600) >= 0:  # IPC_CREAT | 0600
    made += 1
assert made > 0
"""

SHM_LOOK = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
assert libc.shmget(0x5057, 0, 0) == -1, "run A's segment is visible"
assert libc.shmget(0x7057, 1 << 20, 0o1600) >= 0, "no SysV shm left for this run"
"""


def test_sysv_shm_does_not_cross_runs(warm: WarmRunner) -> None:
    filled = _grade(warm, SHM_FILL + GOOD.read_text())
    assert filled.outcome == "graded", (filled.feedback, filled.stderr)
    looked = _grade(warm, SHM_LOOK + GOOD.read_text())
    # It imports ctypes, so the forgery rule scores it 0 (course/checks/forgery.py): what counts
    # here is that its asserts held, i.e. it ran to its end without an AssertionError.
    assert looked.outcome == "graded", (looked.feedback, looked.stderr)
    assert "AssertionError" not in looked.stderr, looked.stderr
    _assert_clean(warm)


def test_a_run_is_confined_like_a_cold_one(warm: WarmRunner) -> None:
    """Own PID namespace (the program is pid 2), no capability, the seccomp filter on."""
    probe = ("import os\nstatus = open('/proc/self/status').read()\n"
             "assert os.getpid() == 2, os.getpid()\n"
             "assert 'CapEff:\\t0000000000000000' in status, status\n"
             "assert 'Seccomp:\\t2' in status, status\n")
    result = _grade(warm, probe + GOOD.read_text())
    assert (result.outcome, result.score) == ("graded", 3.0), (result.feedback, result.stderr)


STOP_EVERYONE = """
import os, signal
# /proc is the warm sandbox's (host-side numbers); kill() takes this run's own numbers.
me = {os.readlink("/proc/self"), str(os.getpid())}
for pid in (p for p in os.listdir("/proc") if p.isdigit() and p not in me):
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        try:
            os.kill(int(pid), sig)
        except OSError:
            pass
"""


def test_a_run_cannot_stop_or_kill_the_warm_parent(warm: WarmRunner) -> None:
    _grade(warm, GOOD.read_text())
    before = list(warm._all)
    result = _grade(warm, STOP_EVERYONE + GOOD.read_text())
    assert result.outcome in {"graded", "sandbox_violation"}, (result.feedback, result.stderr)
    after = _grade(warm, GOOD.read_text())
    assert (after.outcome, after.score) == ("graded", 3.0), (after.feedback, after.stderr)
    assert warm._all == before and all(z.healthy() for z in before), "the same zygote serves"
    _assert_clean(warm)


@pytest.mark.parametrize("sig", [signal.SIGSTOP, signal.SIGKILL])
def test_a_stopped_or_dead_parent_is_replaced_before_the_next_job(warm: WarmRunner,
                                                                 sig: int) -> None:
    _grade(warm, GOOD.read_text())
    [old] = warm._all
    os.kill(old.zygote_pid, sig)
    result = _grade(warm, GOOD.read_text())
    assert (result.outcome, result.score) == ("graded", 3.0), (result.feedback, result.stderr)
    assert warm._all and warm._all[0] is not old
    deadline = time.monotonic() + 5
    while any(os.path.exists(f"/proc/{pid}") for pid in old.keep) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = {pid: open(f"/proc/{pid}/stat").read() for pid in old.keep  # noqa: SIM115
            if os.path.exists(f"/proc/{pid}")}
    assert not left, f"old zygote's processes gone: {left}"
    _assert_clean(warm)


def test_an_out_of_step_reply_replaces_the_parent(warm: WarmRunner) -> None:
    """A late status line of an earlier run is never read as this run's reply."""
    _grade(warm, GOOD.read_text())
    [old] = warm._all
    replaced = warm.replaced
    old.buffer = b'{"run": "an-earlier-run", "status": 0, "started": true}\n'
    after = _grade(warm, GOOD.read_text())
    assert (after.outcome, after.score) == ("graded", 3.0), (after.feedback, after.stderr)
    assert old not in warm._all and warm.replaced == replaced + 1
    assert old.proc.poll() is not None, "the old zygote was killed"
    _assert_clean(warm)


def test_a_run_gets_its_jobs_memory_not_the_warm_cgroup(warm: WarmRunner) -> None:
    source = "import numpy as np\nbig = np.ones(60_000_000)\n" + GOOD.read_text()
    job = make_job(source)
    job = dataclasses.replace(job, limits={"memory_mb": 256})
    result = grade(job, runner=warm, checks_for=lambda _: FIXTURE_CHECKS, ceiling=CORPUS_LIMITS)
    assert result.outcome == "memory_limit", (result.outcome, result.feedback, result.stderr)
    _assert_clean(warm)


LINGERING_THREAD = ("import threading, time\n"
                    "threading.Thread(target=time.sleep, args=(600,)).start()\n")


def test_a_thread_that_outlives_main_waits_out_the_wall_clock_cold_and_warm(
        warm: WarmRunner, runner: SandboxRunner) -> None:
    """Killed at the wall clock with little CPU of its own: ``host_timeout`` both ways (the
    learner's ``timeout`` needs the run's own CPU time at the limit, test_limits_parity)."""
    job = dataclasses.replace(make_job(LINGERING_THREAD + GOOD.read_text()),
                              limits={"wall_s": 8})
    def outcome(r: SandboxRunner) -> str:
        return grade(job, runner=r, checks_for=lambda _: FIXTURE_CHECKS,
                     ceiling=CORPUS_LIMITS).outcome

    # Both wait out the wall limit, at once: the cold run on a thread of its own, the warm one
    # here (a warm runner keeps a parent per thread, and later tests count this thread's).
    with ThreadPoolExecutor(max_workers=1) as pool:
        cold = pool.submit(outcome, runner)
        hot = outcome(warm)
    assert (cold.result(), hot) == ("host_timeout", "host_timeout")
    _assert_clean(warm)


IGNORE_SIGXCPU = ("import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
                  "while True:\n    pass\n")


def test_a_hard_cpu_limit_kill_is_graded_alike_cold_and_warm(warm: WarmRunner,
                                                            runner: SandboxRunner) -> None:
    """A program that ignores SIGXCPU is SIGKILLed at the hard CPU limit, in both modes."""
    job = dataclasses.replace(make_job(IGNORE_SIGXCPU), limits={"cpu_s": 2, "wall_s": 20})
    cold, hot = (grade(job, runner=r, checks_for=lambda _: FIXTURE_CHECKS, ceiling=CORPUS_LIMITS)
                 for r in (runner, warm))
    assert cold.outcome == hot.outcome and hot.outcome != "graded", (cold.feedback, hot.feedback)
    assert hot.timings.run_s < 15, "the CPU limit, not the wall clock, ended it"
    _assert_clean(warm)


def test_the_warm_run_reports_its_cpu_time(warm: WarmRunner) -> None:
    spin = ("import time\nend = time.process_time() + 1.0\n"
            "while time.process_time() < end:\n    pass\n")
    out = warm.run(spin, (), CORPUS_LIMITS)
    assert out.returncode == 0 and out.cpu_s is not None and out.cpu_s >= 1.0, out


def test_a_runs_numpy_blas_has_one_thread_cold_and_warm(warm: WarmRunner,
                                                         runner: SandboxRunner) -> None:
    """OpenBLAS would start a thread per host core (each spinning ~0.1 s of the run's CPU when
    numpy is imported, and again after a product): one thread, whatever the host
    (course.tools.execute.BLAS_ENV). The run's process has no other thread here."""
    for r in (runner, warm):
        out = r.run(BLAS_THREADS, (), CORPUS_LIMITS)
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.decode().splitlines()[-1] == "blas 1 1", (type(r), out.stdout)


TRUSTED_CPU_S: dict[str, float] = {}
"""CPU seconds the worker's thread spent on each hostile job (the sandbox's is not counted)."""
TRUSTED_CPU_BOUND_S = 1.0


def _thread_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_THREAD)
    return usage.ru_utime + usage.ru_stime


@pytest.fixture(scope="module")
def warm_corpus(secret_dir: Path) -> Iterator[tuple[WarmRunner, dict[str, GradingResult]]]:
    """The whole hostile corpus through a warm runner of its own, 3 zygotes (threads) at once,
    each followed by a good job from the same zygote."""
    r = _open_runner()

    def one(path: Path) -> list[tuple[str, GradingResult]]:
        before = _thread_cpu_s()
        hostile = grade(corpus_job(path, secret_dir), runner=r,
                        checks_for=lambda _: FIXTURE_CHECKS, ceiling=CORPUS_LIMITS)
        TRUSTED_CPU_S[path.name] = _thread_cpu_s() - before
        return [(path.name, hostile), (f"after {path.name}", _grade(r, GOOD.read_text()))]

    try:
        with ThreadPoolExecutor(max_workers=3) as pool:
            yield r, {k: v for pair in pool.map(one, CORPUS) for k, v in pair}
    finally:
        _close_runner(r)


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_warm_hostile_submission_is_a_clear_failure_and_the_next_job_scores(
        path: Path, warm_corpus: tuple[WarmRunner, dict[str, GradingResult]]) -> None:
    _, graded = warm_corpus
    result = graded[path.name]
    first = path.read_text().splitlines()[0]
    assert result.outcome in set(first.removeprefix("# expect: ").split()), (
        result.outcome, result.feedback, result.stderr)
    assert result.score < result.max_score == 3.0 and result.feedback
    assert CANARY not in result.stdout + result.stderr + result.feedback
    after = graded[f"after {path.name}"]
    assert (after.outcome, after.score) == ("graded", 3.0), (after.feedback, after.stderr)
    assert TRUSTED_CPU_S[path.name] < TRUSTED_CPU_BOUND_S, TRUSTED_CPU_S[path.name]


def test_warm_corpus_leaves_nothing_behind(
        warm_corpus: tuple[WarmRunner, dict[str, GradingResult]]) -> None:
    runner, _ = warm_corpus
    assert 1 <= len(runner._all) <= 3 and runner.replaced == 0, "no zygote was harmed"
    _assert_clean(runner)


def test_a_parent_that_dies_during_a_run_is_ours_and_replaced(warm: WarmRunner) -> None:
    """The program cannot kill its warm parent; if it dies anyway (the OOM killer, an
    operator), the run is an infrastructure error (retried, not charged) and the next job
    gets a new parent."""
    _grade(warm, GOOD.read_text())
    [old] = warm._all
    killer = threading.Timer(2, os.kill, (old.zygote_pid, signal.SIGKILL))
    killer.start()  # the run is on this thread's zygote
    lost = _grade(warm, "import time\ntime.sleep(20)\n")
    killer.join()
    assert lost.outcome == "infrastructure_error", (lost.outcome, lost.feedback)
    assert lost.timings.run_s < 15, "noticed at once, not at the run's deadline"
    after = _grade(warm, GOOD.read_text())
    assert (after.outcome, after.score) == ("graded", 3.0), (after.feedback, after.stderr)
    assert old not in warm._all
    _assert_clean(warm)


MANY_DIRECTORIES = """
import os
for i in range(100_000):
    os.mkdir(f"d{i}")
for _ in range(20_000):
    os.mkdir("n")
    os.chdir("n")
os.chdir("/home/learner")
for i in range(0, 100, 10):
    os.chmod(f"d{i}", 0)
"""


def test_a_run_directory_of_100k_directories_costs_the_worker_nothing(
        warm: WarmRunner) -> None:
    """The run's home and /tmp are tmpfs of its own mount namespace: they go with it, so the
    worker never walks them (no seconds of CPU, no RecursionError, no residue)."""
    before = _thread_cpu_s()
    result = _grade(warm, MANY_DIRECTORIES + GOOD.read_text())
    trusted = _thread_cpu_s() - before
    assert (result.outcome, result.score) == ("graded", 3.0), (result.feedback, result.stderr)
    assert trusted < TRUSTED_CPU_BOUND_S, trusted
    after = _grade(warm, GOOD.read_text())
    assert (after.outcome, after.score) == ("graded", 3.0), (after.feedback, after.stderr)
    _assert_clean(warm)
