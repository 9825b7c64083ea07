"""The warm parent inside a sandbox: import JAX once, fork one fresh-namespaced run per job.

STANDALONE: bound into the sandbox as /grader/zygote.py next to /grader/harness.py and
/grader/seccomp.py; stdlib only (plus the JAX import it exists for). It never initialises a JAX
backend (once a backend exists, fork deadlocks); each run initialises its own. It holds no
secret: it is already inside the sandbox (no network, read-only system, unprivileged uid).

Why each run is as isolated as a cold one: at start the zygote makes its own user namespace
(caps over nothing but namespaces it creates). Each run is three processes:

- setup (the zygote's child, outside the run): unshare mount, IPC and PID namespaces, mount a
  fresh tmpfs on /tmp, /dev/shm and the home (the size of a cold run's; they vanish with the
  namespace: no cleanup, no residue, SysV shm dies with the IPC namespace), copy main.py in,
  then fork. Everything else (/, /grader, /dev) is read-only, as bwrap left it;
- init (pid 1 of the run's PID namespace, the init uid when two uids are mapped): reaps, relays
  the program's status as bwrap does (code, or 128 + signal); when it ends every process of the
  run dies. The program cannot signal it (another uid) nor see the zygote (another namespace);
- program (pid 2): no capabilities, its rlimits, the seccomp filter, then the harness. It ends
  as an interpreter does (joins non-daemon threads, runs atexit), so outcomes match cold runs.

Control protocol on the inherited SOCK_SEQPACKET socket (fd argv[1]), one JSON object per
packet, each reply tagged with the id it answers: hello {"userns": pid} (the worker, as root,
writes the id maps and answers {"mapped": true}), then {"ready": true}. {"ping": id} is
answered {"run": id, "pong": true}. A run: {"run", "names", "rlimits", "tmpfs_mb"}
with five descriptors (stdout, stderr, values, go, source) is answered {"run", "pid"} once its
setup process exists (it waits for one byte on "go", sent once the worker has put it in the
run's cgroup), then {"run", "status", "started", "cpu_s"} ("started": the run's init was set
up, so how it ended is the program's doing; "cpu_s": CPU time of the run's reaped processes).
"""

from __future__ import annotations

import atexit
import ctypes
import importlib.util
import json
import os
import resource
import signal
import socket
import sys
import threading

PR_SET_DUMPABLE = 4
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID = 0x20000, 0x8000000, 0x10000000, 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND = 0x1, 0x2, 0x4, 0x20, 0x1000
MS_REC, MS_PRIVATE = 0x4000, 0x40000
HOME = "/home/learner"
SETUP_FAILED = 121
_libc = ctypes.CDLL(None, use_errno=True)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _load(name: str):  # noqa: ANN202
    spec = importlib.util.spec_from_file_location(f"pathways_{name}", f"/grader/{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _send(control: socket.socket, **message: object) -> None:
    control.sendall(json.dumps(message).encode() + b"\n")


def _drop_capabilities() -> None:
    """capset(2) to nothing: the run's processes keep no capability of the zygote's userns."""
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (ctypes.c_uint32 * 6)()
    _check(_libc.capset(header, data), "capset")


def _mount_tmpfs(target: str, mode: str, size_mb: int) -> None:
    """A tmpfs as bwrap's ``--size`` makes one for a cold run: the same size, and the kernel's
    default inode limit (so cold and warm grade an inode-heavy program alike)."""
    options = f"size={size_mb}m,mode={mode}".encode()
    _check(_libc.mount(b"tmpfs", target.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options),
           f"mount tmpfs on {target}")


def _mounts_under(parent: str) -> list[str]:
    """The outermost mount points below ``parent`` (e.g. a venv under /tmp that bwrap bound
    over the sandbox's /tmp: a checkout in /tmp, as CI may make)."""
    points = []
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            point = line.split()[4].replace("\\040", " ")
            if point.startswith(parent + "/"):
                points.append(point)
    return [p for p in sorted(set(points))
            if not any(p != q and p.startswith(q + "/") for q in points)]


def _fresh_tmp(size_mb: int) -> None:
    """A fresh tmpfs on /tmp for this run, with what bwrap bound below /tmp (the interpreter,
    read-only) bound back on top of it: held by O_PATH descriptors across the new mount."""
    kept = {point: os.open(point, os.O_PATH) for point in _mounts_under("/tmp")}
    _mount_tmpfs("/tmp", "1777", size_mb)
    for point, fd in kept.items():
        os.makedirs(point, mode=0o755, exist_ok=True)
        _check(_libc.mount(f"/proc/self/fd/{fd}".encode(), point.encode(), None,
                           MS_BIND | MS_REC, None), f"bind {point} back over /tmp")
        # Read-only as bwrap made it (a bind of a locked read-only mount stays read-only; this
        # says so explicitly where the kernel lets us).
        _libc.mount(None, point.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
        os.close(fd)


def _relay(status: int) -> int:
    """A wait status as bwrap's exit code: the code, or 128 + the signal."""
    return 128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _program(request: dict, fds: dict[str, int], harness, seccomp) -> None:  # noqa: ANN001
    """pid 2 of the run: the learner's program through the harness. Never returns."""
    code = 70
    try:
        os.setsid()
        _drop_capabilities()
        _libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # its own /proc/self; the OOM killer's choice
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("1000")
        for name, (soft, hard) in request["rlimits"].items():
            resource.setrlimit(getattr(resource, name), (soft, hard))
        os.chdir(HOME)
        for key, value in (request.get("env") or {}).items():  # XLA_FLAGS: read when this
            if key == "XLA_FLAGS" and isinstance(value, str):  # run's backend starts
                os.environ[key] = value
        seccomp.install_in_this_process()
        sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
        sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
        calls = ["--calls", f"{HOME}/calls.bin"] if request.get("calls") else []
        code = harness.main(["--names", ",".join(request["names"]), *calls, "--fd",
                             str(fds["values"]), f"{HOME}/main.py"])
        threading._shutdown()  # as at interpreter exit: a live thread keeps the run going
        atexit._run_exitfuncs()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - report, then end this run only
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001, S110 - a closed stream must not stop the exit
                pass
        os._exit(code)


def _init(request: dict, fds: dict[str, int], started: int, harness, seccomp,  # noqa: ANN001
          init_uid: int | None) -> None:
    """pid 1 of the run's PID namespace: start the program, reap, relay. Never returns."""
    code = SETUP_FAILED
    try:
        uid, gid = os.getuid(), os.getgid()
        if init_uid is not None:  # another uid: the program may not signal its init
            os.setresgid(init_uid, init_uid, init_uid)
            os.setresuid(init_uid, init_uid, init_uid)
        os.write(started, b"1")  # from here on, how the run ends is the program's doing
        os.close(started)
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # an init ignores what it does not handle
        program = os.fork()
        if program == 0:
            signal.signal(signal.SIGINT, signal.default_int_handler)  # as any interpreter
            if init_uid is not None:
                os.setresgid(gid, gid, gid)
                os.setresuid(uid, uid, uid)
            _program(request, fds, harness, seccomp)
        for fd in fds.values():
            os.close(fd)
        _drop_capabilities()
        while True:
            pid, status = os.wait()
            if pid == program:
                code = _relay(status)
                break
    finally:
        os._exit(code)


def _drain(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def _setup(request: dict, fds: dict[str, int], started: int, harness, seccomp,  # noqa: ANN001
           init_uid: int | None) -> None:
    """The run's own namespaces and files, then its init. Never returns."""
    code = SETUP_FAILED
    try:
        for target, name in ((1, "stdout"), (2, "stderr")):  # no second copy for the program
            fd = fds.pop(name)
            if fd != target:
                os.dup2(fd, target)
                os.close(fd)
        go = fds.pop("go")
        if os.read(go, 1) != b"g":  # the worker has not placed us in the run's cgroup
            return
        os.close(go)
        files = {name: _drain(fds.pop(fd)) for name, fd in
                 (("main.py", "source"), ("calls.bin", "calls")) if fd in fds}
        _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID), "unshare")
        _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")
        size = int(request["tmpfs_mb"])
        _fresh_tmp(size)
        _mount_tmpfs(HOME, "0700", size)
        # Its own /dev/shm: the sandbox's (read-only /dev, as / and /grader) would carry files
        # to the next run, charged to the warm cgroup.
        _mount_tmpfs("/dev/shm", "1777", size)
        for name, data in files.items():  # main.py, and a function exercise's hidden inputs
            with open(f"{HOME}/{name}", "wb") as handle:
                handle.write(data)
        init = os.fork()
        if init == 0:
            _init(request, fds, started, harness, seccomp, init_uid)
        os.close(started)
        for fd in fds.values():
            os.close(fd)
        _, status = os.waitpid(init, 0)
        code = _relay(status)
    except BaseException:  # noqa: BLE001 - a setup failure is ours: the worker retries
        import traceback

        traceback.print_exc()
    finally:
        os._exit(code)


def _own_userns(control: socket.socket, buffer: bytearray) -> None:
    """A user namespace of our own: caps for the runs' namespaces and mounts, over nothing else.
    The worker (root) maps two uids (program and init); otherwise map our own uid alone."""
    uid, gid = os.getuid(), os.getgid()
    _check(_libc.unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
    if "--worker-maps" in sys.argv:
        _send(control, userns=os.getpid())
        while b"\n" not in buffer:
            chunk = control.recv(4096)
            if not chunk:
                raise EOFError("worker closed the control socket")
            buffer += chunk
        line, _, rest = bytes(buffer).partition(b"\n")
        buffer[:] = rest
        if json.loads(line) != {"mapped": True}:
            raise ValueError("unexpected reply to the user namespace hello")
        return
    with open("/proc/self/setgroups", "w") as handle:
        handle.write("deny")
    with open("/proc/self/uid_map", "w") as handle:
        handle.write(f"{uid} {uid} 1")
    with open("/proc/self/gid_map", "w") as handle:
        handle.write(f"{gid} {gid} 1")


def main() -> int:
    control = socket.socket(fileno=int(sys.argv[1]))
    init_uid = int(sys.argv[sys.argv.index("--init-uid") + 1]) if "--init-uid" in sys.argv else None
    _own_userns(control, bytearray())
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # runs (same uid) cannot ptrace or read us
    import jax  # noqa: F401  - the point of the zygote: imported, never initialised
    import jax.numpy  # noqa: F401
    import numpy  # noqa: F401

    harness, seccomp = _load("harness"), _load("seccomp")
    _send(control, ready=True)
    while True:
        message, received, _flags, _addr = socket.recv_fds(control, 65536, 6)
        if not message:
            return 0
        request = json.loads(message)
        if "ping" in request:  # the worker's check, before a job, that we are responsive
            _send(control, run=request["ping"], pong=True)
            continue
        names = ("stdout", "stderr", "values", "go", "source", "calls")[:len(received)]
        fds = dict(zip(names, received, strict=True))
        read_started, started = os.pipe()
        pid = os.fork()
        if pid == 0:
            control.close()
            os.close(read_started)
            _setup(request, fds, started, harness, seccomp, init_uid)
        os.close(started)
        for fd in fds.values():
            os.close(fd)
        _send(control, run=request["run"], pid=pid)
        _, status, usage = os.wait4(pid, 0)  # usage: the run's processes that were reaped
        ran = os.read(read_started, 1) == b"1"
        os.close(read_started)
        _send(control, run=request["run"], status=_relay(status), started=ran,
              cpu_s=round(usage.ru_utime + usage.ru_stime, 3))


if __name__ == "__main__":
    sys.exit(main())
