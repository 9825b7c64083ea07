"""Writes deploy/docker/grader-seccomp.json: the grader container's seccomp profile, an allow-list.

Why a profile of its own: bubblewrap, run by the unprivileged worker, makes a user namespace and
then mount, pid, network, IPC and UTS namespaces inside it, mounts a fresh /proc and tmpfs
directories and pivots into the new root. Docker's default profile allows ``clone`` with a
namespace flag, ``unshare``, ``mount``, ``umount2`` and ``pivot_root`` only to a container
holding CAP_SYS_ADMIN, which the grader must never get; ``seccomp=unconfined`` drops the filter.

Deny by default: only the calls listed in ``ALLOWED`` pass; they are what CPython, numpy, JAX's
XLA runtime (threads, futexes, mmap), the worker's Redis client and bubblewrap make, checked by
running the hostile corpus and a JAX program under this profile in the image
(tests/deploy/images/test_images_seccomp.py). A call not listed gets EPERM (Debian's Docker
20.10 with runc 1.1 ignores ``defaultErrnoRet``: the default's errno is EPERM whatever it
says), as do the calls the sandbox refuses learner code (grader_worker/sandbox/seccomp.py),
except the four bubblewrap needs; ``clone3`` gets ENOSYS (a filter cannot read its flags; libc
falls back to ``clone``, which threads need). ``personality`` is allowed only with the values
the sandbox allows, ``socket`` for any family but AF_VSOCK (as Docker's default). Only the
native ABI: a call through another (i386 ``int 0x80``, x32) fails the architecture check.

    python deploy/images/grader_seccomp.py [--check]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from grader_worker.sandbox.seccomp import DENIED, PERSONALITY_ALLOWED  # noqa: E402

OUT = ROOT / "deploy" / "docker" / "grader-seccomp.json"
ENOSYS, EPERM, AF_VSOCK = 38, 1, 40

BWRAP_NEEDS = ("mount", "umount2", "pivot_root", "unshare")
"""Allowed here, refused again inside the sandbox; ``clone`` is allowed with every flag
(bubblewrap's user, pid, mount, net, ipc and uts namespaces). No capability comes with them:
they succeed only inside the new user namespace."""

ALLOWED = {
    "files": (
        "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev",
        "preadv2", "pwritev2", "open", "openat", "close", "close_range", "creat", "lseek",
        "dup", "dup2", "dup3", "fcntl", "ioctl", "pipe", "pipe2", "stat", "fstat", "lstat",
        "newfstatat", "statx", "statfs", "fstatfs", "access", "faccessat", "faccessat2",
        "getdents", "getdents64", "getcwd", "chdir", "fchdir", "mkdir", "mkdirat", "rmdir",
        "rename", "renameat", "renameat2", "unlink", "unlinkat", "link", "linkat", "symlink",
        "symlinkat", "readlink", "readlinkat", "chmod", "fchmod", "fchmodat", "chown", "fchown",
        "fchownat", "lchown", "umask", "truncate", "ftruncate", "fallocate", "fadvise64",
        "fsync", "fdatasync", "sync", "syncfs", "flock", "utime", "utimes", "utimensat",
        "futimesat", "mknod", "mknodat", "copy_file_range", "sendfile", "splice", "tee",
        "readahead", "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr",
        "flistxattr", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
        "fremovexattr",
    ),
    "memory": (
        "brk", "mmap", "munmap", "mprotect", "mremap", "madvise", "mincore", "msync", "mlock",
        "mlock2", "munlock", "mlockall", "munlockall", "membarrier", "memfd_create",
    ),
    "processes and threads": (
        "clone", "fork", "vfork", "execve", "execveat", "exit", "exit_group", "wait4",
        "waitid", "kill", "tkill", "tgkill", "getpid", "getppid", "gettid", "getpgid",
        "getpgrp", "setpgid", "getsid", "setsid", "set_tid_address", "set_robust_list",
        "get_robust_list", "rseq", "arch_prctl", "prctl", "restart_syscall", "pidfd_open",
        "pidfd_send_signal", "getcpu", "sched_yield", "sched_getaffinity", "sched_setaffinity",
        "sched_getparam", "sched_getscheduler", "sched_get_priority_max",
        "sched_get_priority_min", "getpriority", "setpriority", "getrlimit", "setrlimit",
        "prlimit64", "getrusage", "times", "sysinfo", "uname",
    ),
    "credentials (bubblewrap drops capabilities and maps its uid)": (
        "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid", "getgroups",
        "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups",
        "setfsuid", "setfsgid", "capget", "capset", "seccomp",
    ),
    "signals": (
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend", "rt_sigpending",
        "rt_sigtimedwait", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "sigaltstack", "signalfd",
        "signalfd4", "pause", "alarm",
    ),
    "time": (
        "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday",
        "time", "getitimer", "setitimer", "timer_create", "timer_settime", "timer_gettime",
        "timer_getoverrun", "timer_delete", "timerfd_create", "timerfd_settime",
        "timerfd_gettime",
    ),
    "waiting": (
        "futex", "futex_waitv", "poll", "ppoll", "select", "pselect6", "epoll_create",
        "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2", "eventfd",
        "eventfd2", "getrandom",
    ),
    "sockets (Redis; bubblewrap brings up loopback over netlink)": (
        "socketpair", "bind", "listen", "accept", "accept4", "connect", "getsockname",
        "getpeername", "getsockopt", "setsockopt", "sendto", "recvfrom", "sendmsg", "recvmsg",
        "sendmmsg", "recvmmsg", "shutdown",
    ),
    "bubblewrap's namespaces": BWRAP_NEEDS,
}


def allowed() -> set[str]:
    return {name for group in ALLOWED.values() for name in group}


def profile() -> dict:
    allow = allowed()
    clash = (allow & set(DENIED)) - set(BWRAP_NEEDS)
    assert not clash, f"allowed and refused by the sandbox: {sorted(clash)}"
    return {
        "defaultAction": "SCMP_ACT_ERRNO",
        "defaultErrnoRet": EPERM,
        "archMap": [
            {"architecture": "SCMP_ARCH_X86_64", "subArchitectures": []},
            {"architecture": "SCMP_ARCH_AARCH64", "subArchitectures": []},
        ],
        "syscalls": [
            {"names": sorted(allow), "action": "SCMP_ACT_ALLOW"},
            *({"names": ["personality"], "action": "SCMP_ACT_ALLOW",
               "args": [{"index": 0, "value": value, "op": "SCMP_CMP_EQ"}]}
              for value in PERSONALITY_ALLOWED),
            {"names": ["socket"], "action": "SCMP_ACT_ALLOW",
             "args": [{"index": 0, "value": AF_VSOCK, "op": "SCMP_CMP_NE"}]},
            {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": ENOSYS},
            # What the sandbox refuses learner code, named (EPERM, as the default's): kept off
            # even if a later edit of ALLOWED lists one (profile() refuses such an edit).
            {"names": sorted(set(DENIED) - set(BWRAP_NEEDS)), "action": "SCMP_ACT_ERRNO",
             "errnoRet": EPERM},
        ],
    }


def render() -> str:
    return json.dumps(profile(), indent=1) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        sys.exit(0 if OUT.read_text() == render() else "grader-seccomp.json is stale: regenerate")
    OUT.write_text(render())
