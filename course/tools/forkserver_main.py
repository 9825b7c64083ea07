"""The fork server behind ``course check``'s runs (started by ``course.tools.forkserver``).

Run as a script, never imported: it imports JAX, NumPy and matplotlib once, and never starts a
JAX backend (a fork after a backend started can deadlock). Then, for each request, it forks a
child that becomes ``python SCRIPT ARGS`` as far as the script can tell: its own session and
working folder, stdin from /dev/null, stdout and stderr to the files the client named, only fds
0-2 open, ``sys.argv``, ``sys.path[0]`` and a fresh ``__main__``, freshly seeded ``random`` and
NumPy generators, and the traceback of an uncaught exception printed from the script's frames
on. Each run saves the ~1 s that importing JAX costs a cold process.

Started as ``forkserver_main.py REPLY_FD CLIENT_PID``. Protocol: one JSON object per line.
Requests on stdin: ``{"id", "argv", "cwd", "stdout",
"stderr", "env"}``. Replies on the fd named by argv[1]: ``{"ready": true}`` once, then ``{"id",
"pid"}`` when a run starts and ``{"id", "status"}`` (an exit code, or minus the signal) when it
ends. Closing stdin ends the server and kills the runs still going; so does the end of the
process that started it, even while another process still holds stdin's write end (a process
its client forked, or a client killed by SIGTERM that never closed its pipe).
"""

from __future__ import annotations

import atexit
import builtins
import io
import json
import os
import random
import selectors
import signal
import sys
import traceback
import types


def _preload() -> None:
    import jax  # noqa: F401
    import jax.numpy  # noqa: F401
    import numpy  # noqa: F401

    _one_ir_context_a_thread()

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401
    except ImportError:
        pass


def _one_ir_context_a_thread() -> None:
    """The harness's MLIR-context reuse (course/checks/harness_jax.py, loaded by path: this
    script imports nothing of the project) for every run forked from here, the plain programs
    (main.py, experiments, figures) as well as the harness's: each lowering would otherwise
    make a fresh context (~2-3 ms; ~9% of a lesson's `course check`). A module's text is the
    same in any context, so what the programs print is unchanged; the harness's own set-up
    finds it done. A JAX whose internals moved runs as it was."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "checks",
                        "harness_jax.py")
    try:
        from jax._src.interpreters import mlir

        spec = importlib.util.spec_from_file_location("pathways_harness_jax", path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        module.reuse_ir_context(mlir)
    except Exception:  # noqa: BLE001, S110 - it only saves time
        pass


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def _become(request: dict) -> int:
    """In the child: set up the process as ``python SCRIPT`` would, run it, return its code."""
    os.setsid()
    os.environ.clear()  # the client's, undoing whatever the preloaded imports set
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    targets = (os.open(os.devnull, os.O_RDONLY),
               os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
               os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
    for fd, target in enumerate(targets):
        os.dup2(target, fd)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # as subprocess's close_fds: only 0-2 stay
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), write_through=True,
                                  errors="backslashreplace")
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.argv = list(request["argv"])
    script = os.path.abspath(sys.argv[0])  # __file__ and tracebacks: absolute, as since 3.9
    sys.path[0] = os.path.dirname(script)
    random.seed()
    import numpy

    numpy.random.seed()
    main = types.ModuleType("__main__")
    main.__file__ = script
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    try:
        with open(script, "rb") as fh:
            code = compile(fh.read(), script, "exec")
        exec(code, main.__dict__)
        status = 0
    except SystemExit as exc:
        status = _exit_code(exc)
    except BaseException as exc:  # what `python SCRIPT` prints: the script's frames on
        traceback.print_exception(type(exc), exc, exc.__traceback__.tb_next)
        status = 1
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: S110 - the run is over; its code stands
        pass
    return status


def _kill_all(running: dict[int, str]) -> None:
    for pid in running:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _watch_client(selector: selectors.BaseSelector, client: int) -> bool:
    """Readable when the client process (this server's parent) ends; False if it already has."""
    try:
        selector.register(os.pidfd_open(client), selectors.EVENT_READ, _PARENT)
    except ProcessLookupError:
        return False
    return os.getppid() == client  # still our parent once the pidfd is open: the same process


_STDIN, _PARENT = "stdin", "parent"


def serve(reply_fd: int, client: int) -> None:
    replies = os.fdopen(reply_fd, "w", buffering=1)

    def send(message: dict) -> None:
        replies.write(json.dumps(message) + "\n")

    selector = selectors.DefaultSelector()
    if not _watch_client(selector, client):
        return
    _preload()
    send({"ready": True})
    selector.register(0, selectors.EVENT_READ, _STDIN)
    running: dict[int, str] = {}
    pending = b""
    while True:
        for key, _ in selector.select():
            if key.data == _PARENT:  # the client is gone, whoever still holds its pipe
                _kill_all(running)
                return
            if key.data == _STDIN:
                chunk = os.read(0, 1 << 16)
                if not chunk:  # the client went away: so do its runs
                    _kill_all(running)
                    return
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    request = json.loads(line)
                    pid = os.fork()
                    if pid == 0:
                        status = 255  # stays if setting up the run itself failed
                        try:
                            status = _become(request)
                        finally:
                            os._exit(status)
                    running[pid] = request["id"]
                    pidfd = os.pidfd_open(pid)
                    selector.register(pidfd, selectors.EVENT_READ, pid)
                    send({"id": request["id"], "pid": pid})
            else:
                pid = key.data
                selector.unregister(key.fd)
                os.close(key.fd)
                _, wait_status = os.waitpid(pid, 0)
                send({"id": running.pop(pid), "status": os.waitstatus_to_exitcode(wait_status)})


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))
