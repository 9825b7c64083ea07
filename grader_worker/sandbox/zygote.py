"""The warm parent inside a sandbox: import JAX once, fork one child per run.

STANDALONE: bound into the sandbox as /grader/zygote.py next to /grader/harness.py; stdlib only
(plus the JAX import it exists for). It never initialises a JAX backend (once a backend exists,
fork deadlocks); each child initialises its own. It holds no secret: it is already inside the
sandbox (no network, read-only system, unprivileged uid) and knows only run directories.

Protocol on the inherited control socket (fd argv[1]): the worker sends one JSON request with
three descriptors (stdout, stderr, values pipe ends); the zygote forks, answers
{"pid": <pid in the sandbox>}, and later {"status": <wait status>} when the child ends.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import resource
import shutil
import socket
import sys

PR_SET_DUMPABLE = 4


def _load_harness():  # noqa: ANN202
    spec = importlib.util.spec_from_file_location("pathways_harness", "/grader/harness.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _child(request: dict, fds: list[int], harness) -> None:  # noqa: ANN001
    out, err, values = fds
    os.setsid()
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.close(out)
    os.close(err)
    # The zygote is not dumpable (so children cannot ptrace it); the child may be, which also
    # gives it back its own /proc/self to raise its OOM score: the OOM killer takes it first.
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    with open("/proc/self/oom_score_adj", "w") as handle:
        handle.write("1000")
    for name, value in request["rlimits"].items():
        which = getattr(resource, name)
        soft = value[0] if isinstance(value, list) else value
        hard = value[1] if isinstance(value, list) else value
        resource.setrlimit(which, (soft, hard))
    workdir = request["dir"]
    os.chdir(workdir)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    extra = [str(arg) for arg in request.get("extra", [])]
    code = harness.main(["--names", ",".join(request["names"]), *extra, "--fd", str(values),
                         os.path.join(workdir, "main.py")])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _clean_tmp() -> None:
    for entry in os.listdir("/tmp"):
        path = os.path.join("/tmp", entry)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass


def main() -> int:
    control = socket.socket(fileno=int(sys.argv[1]))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # children (same uid) cannot ptrace or read us
    import jax  # noqa: F401  - the point of the zygote: imported, never initialised
    import jax.numpy  # noqa: F401
    import numpy  # noqa: F401

    harness = _load_harness()
    control.sendall(json.dumps({"ready": True, "pid": os.getpid()}).encode() + b"\n")
    while True:
        message, fds, _flags, _addr = socket.recv_fds(control, 65536, 3)
        if not message:
            return 0
        request = json.loads(message)
        pid = os.fork()
        if pid == 0:
            control.close()
            try:
                _child(request, fds, harness)
            except BaseException:  # noqa: BLE001 - report, then end the child only
                import traceback

                traceback.print_exc()
            finally:
                os._exit(70)
        for fd in fds:
            os.close(fd)
        control.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        _, status = os.waitpid(pid, 0)
        _clean_tmp()
        control.sendall(json.dumps({"status": status}).encode() + b"\n")


if __name__ == "__main__":
    sys.exit(main())
