"""A script forked from the prewarmed server sees and reports what a cold ``python SCRIPT``
does; anything the server cannot take runs cold."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from course.tools import forkserver
from course.tools.execute import child_env, run_python
from course.tools.forkserver import ForkServer, prewarmed
from tests.blas_probe import BLAS_THREADS

PROBE = """\
import os, random, sys
import numpy as np
import jax.numpy as jnp
print("argv", sys.argv, "cwd", os.getcwd(), "path0", sys.path[0])
print("main", __name__, __file__, sys.modules["__main__"].__file__ == __file__)
print("fds", sorted(int(f) for f in os.listdir("/proc/self/fd"))[:3])
print("stdin", repr(sys.stdin.read()))
print("sum", int(jnp.arange(4).sum()))
print("sid", os.getsid(0) == os.getpid())
print("to stderr", file=sys.stderr)
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
"""

RAISES = "import json\nvalue = json.loads('{}')\nraise KeyError('missing: ' + str(value))\n"


@pytest.fixture(scope="module")
def started() -> Iterator[ForkServer]:
    """One server for the module's tests that only run scripts through it: each start is a
    cold JAX import (~1.5 CPU s); the tests of starting, stopping and turning it off make
    their own."""
    server = forkserver.start(child_env())
    assert server is not None, "the fork server did not start"
    yield server
    server.close()


@pytest.fixture
def server(started: ForkServer) -> Iterator[ForkServer]:
    """``started`` as the process's server (what ``prewarmed`` sets) for one test."""
    assert forkserver.active() is None
    forkserver._active = started
    try:
        yield started
    finally:
        forkserver._active = None


def _cold(args: list[str], cwd: Path, timeout: float = 60):  # type: ignore[no-untyped-def]
    assert forkserver.active() is None
    return run_python(args, cwd=cwd, timeout=timeout)


def test_a_forked_script_sees_and_prints_what_a_cold_one_does(tmp_path: Path,
                                                              server: ForkServer) -> None:
    (tmp_path / "probe.py").write_text(PROBE)
    forked = run_python(["probe.py", "3"], cwd=tmp_path)
    assert forked.seconds < 60
    forkserver._active = None  # the same run, cold, for comparison
    try:
        cold = _cold(["probe.py", "3"], tmp_path)
    finally:
        forkserver._active = server
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        cold.returncode, cold.stdout, cold.stderr) == (3, cold.stdout, "to stderr\n")
    assert f"main __main__ {tmp_path / 'probe.py'} True" in cold.stdout
    assert "fds [0, 1, 2]" in cold.stdout and "stdin ''" in cold.stdout


def test_an_uncaught_exception_prints_the_scripts_traceback_only(tmp_path: Path,
                                                                 server: ForkServer) -> None:
    (tmp_path / "raises.py").write_text(RAISES)
    forked = run_python([str(tmp_path / "raises.py")], cwd=tmp_path)
    forkserver._active = None
    try:
        cold = _cold([str(tmp_path / "raises.py")], tmp_path)
    finally:
        forkserver._active = server
    assert forked.returncode == cold.returncode == 1
    assert forked.stderr == cold.stderr
    assert forked.stderr.startswith("Traceback (most recent call last):\n  File \"")


def test_each_run_draws_fresh_random_numbers(tmp_path: Path, server: ForkServer) -> None:
    (tmp_path / "draw.py").write_text("import random\nimport numpy as np\n"
                                      "print(random.random(), np.random.rand())\n")
    draws = {run_python(["draw.py"], cwd=tmp_path).stdout for _ in range(3)}
    assert len(draws) == 3


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "cold"])
def test_the_timeout_kills_the_run_and_what_it_started(tmp_path: Path, forked: bool,
                                                       request: pytest.FixtureRequest) -> None:
    if forked:
        request.getfixturevalue("server")
    (tmp_path / "hang.py").write_text(
        "import subprocess, time\n"
        "child = subprocess.Popen(['sleep', '300'])\n"
        "open('child.pid', 'w').write(str(child.pid))\n"
        "time.sleep(300)\n")
    started = time.monotonic()
    result = run_python(["hang.py"], cwd=tmp_path, timeout=3)
    assert result.returncode is None and time.monotonic() - started < 30
    grandchild = int((tmp_path / "child.pid").read_text())
    deadline = time.monotonic() + 10
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(grandchild)
    assert run_python(["-c", "print('next')"], cwd=tmp_path).stdout == "next\n"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_runs_inside_get_the_servers_environment_and_c_programs_run_cold(
        tmp_path: Path, server: ForkServer, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pid.py").write_text(
        "import os\nprint(os.getppid(), os.environ.get('PATHWAYS_SOMETHING_NEW'))\n")
    monkeypatch.setenv("PATHWAYS_SOMETHING_NEW", "1")  # a change made after the server started
    assert run_python(["pid.py"], cwd=tmp_path).stdout.split() == [str(server._proc.pid),
                                                                   "None"]
    cold = run_python(["-c", "import os; print(os.getppid(), os.environ.get("
                             "'PATHWAYS_SOMETHING_NEW'))"], cwd=tmp_path)
    assert cold.stdout.split() == [str(os.getpid()), "None"]


def test_a_dead_server_means_cold_runs_not_failures(tmp_path: Path) -> None:
    (tmp_path / "pid.py").write_text("import os\nprint(os.getppid())\n")
    with prewarmed(child_env()) as dying:
        assert dying is not None
        os.kill(dying._proc.pid, signal.SIGKILL)
        dying._proc.wait()
        dying._reader.join(timeout=10)
        result = run_python(["pid.py"], cwd=tmp_path)
        assert result.ok and int(result.stdout) == os.getpid()


def test_the_operator_can_turn_it_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATHWAYS_CHECK_COLD", "1")
    with prewarmed(child_env()) as none:
        assert none is None and forkserver.active() is None


CLIENT = """\
import os, sys, time
from course.tools.execute import child_env
from course.tools.forkserver import ForkServer
server = ForkServer(child_env())
holder = os.fork()  # holds the server's stdin pipe open, as a forked test helper would
if holder == 0:
    time.sleep(120)
    os._exit(0)
print(server.pid, holder, flush=True)
time.sleep(120)
"""


def _gone(pid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        with open(f"/proc/{pid}/stat") as fh:  # a zombie is gone too: only its reaper is late
            if fh.read().split(") ", 1)[1].startswith("Z"):
                return True
        time.sleep(0.1)
    return False


def test_the_server_ends_with_its_client_even_when_the_pipe_stays_open() -> None:
    """A test run stopped with SIGTERM leaves no fork server behind, though a process the
    client forked still holds the server's stdin (it never sees end of file)."""
    with subprocess.Popen([sys.executable, "-c", CLIENT], stdout=subprocess.PIPE, text=True,
                          env=child_env()) as client:
        assert client.stdout is not None
        server_pid, holder = (int(word) for word in client.stdout.readline().split())
        try:
            client.send_signal(signal.SIGTERM)
            client.wait(timeout=30)
            assert _gone(server_pid, within_s=30), "the fork server outlived its client"
        finally:
            os.kill(holder, signal.SIGKILL)


def test_a_forked_run_gets_the_devices_asked_for_it_only(tmp_path: Path,
                                                         server: ForkServer) -> None:
    from course.devices import device_env

    (tmp_path / "count.py").write_text("import jax\nprint(jax.device_count())\n")
    eight = run_python(["count.py"], cwd=tmp_path, extra_env=device_env(8))
    plain = run_python(["count.py"], cwd=tmp_path)
    assert (eight.stdout.strip(), plain.stdout.strip()) == ("8", "1"), eight.stderr


def test_every_run_has_one_blas_thread_cold_and_forked(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """`course check`'s runs, as the grader's (test_warm): numpy's BLAS on one thread, not one
    per core spinning in every run (execute.BLAS_ENV), when the caller's environment does not
    say otherwise (the suite sets it for its own processes: taken out here)."""
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    (tmp_path / "blas.py").write_text(BLAS_THREADS)
    cold = _cold(["blas.py"], tmp_path)
    with prewarmed(child_env()) as started:
        assert started is not None
        forked = run_python(["blas.py"], cwd=tmp_path)
    for run in (cold, forked):
        assert run.ok, run.describe_failure()
        assert run.stdout.splitlines()[-1] == "blas 1 1", run.stdout


def test_a_forked_plain_script_lowers_in_one_mlir_context_a_thread(tmp_path: Path,
                                                                  server: ForkServer) -> None:
    """Plain programs (main.py, experiments, figures) forked from the server get the harness's
    context reuse too; a cold `python main.py` makes one a lowering, and both print the same
    values (tests/course/test_harness_jax.py's program)."""
    from tests.course.test_harness_jax import LOWERS

    (tmp_path / "lowers.py").write_text(LOWERS)
    forked = run_python(["lowers.py"], cwd=tmp_path)
    forkserver._active = None
    try:
        cold = _cold(["lowers.py"], tmp_path)
    finally:
        forkserver._active = server
    assert forked.returncode == cold.returncode == 0, forked.stderr + cold.stderr
    assert forked.stdout.split() == ["True", "True", "3.01604"]
    assert cold.stdout.split() == ["False", "False", "3.01604"]
