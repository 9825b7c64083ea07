"""Writes deploy/docker/grader-seccomp.json: the grader container's seccomp profile.

Why a profile of its own: bubblewrap, run by the unprivileged worker, makes a user namespace and
then mount, pid, network, IPC and UTS namespaces inside it, mounts a fresh /proc and tmpfs
directories and pivots into the new root. Docker's default profile allows ``clone`` with a
namespace flag, ``unshare``, ``mount``, ``umount2`` and ``pivot_root`` only to a container
holding CAP_SYS_ADMIN, which the grader must never get. ``seccomp=unconfined`` works but drops
the filter altogether. This profile refuses what the sandbox's own filter refuses
(grader_worker/sandbox/seccomp.py, applied again to every learner program) and what Docker's
default refuses beyond it, except the five calls bubblewrap needs; ``clone3`` gets ENOSYS (a
filter cannot read its flags; libc falls back to ``clone``). Only the native ABI: a call through
another (i386 ``int 0x80``, x32) is refused by the architecture check.

    python deploy/images/grader_seccomp.py [--check]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from grader_worker.sandbox.seccomp import DENIED  # noqa: E402

OUT = ROOT / "deploy" / "docker" / "grader-seccomp.json"

BWRAP_NEEDS = ("mount", "umount2", "pivot_root", "unshare")
"""Allowed here, refused again inside the sandbox. ``clone`` stays allowed with every flag."""

ALSO_DENIED = (
    # Refused by Docker's default profile to a container without extra capabilities, and
    # needed by neither the worker, JAX nor bubblewrap.
    "get_mempolicy", "set_mempolicy", "mbind", "set_mempolicy_home_node", "migrate_pages",
    "move_pages", "process_madvise", "pkey_alloc", "pkey_free", "pkey_mprotect",
    "get_kernel_syms", "create_module", "query_module", "vm86", "vm86old", "ustat", "sysfs",
    "stime", "clock_settime64", "afs_syscall", "getpmsg", "putpmsg", "security", "tuxcall",
    "vserver", "lookup_dcookie", "memfd_secret", "fanotify_mark", "process_mrelease",
)


def profile() -> dict:
    denied = sorted({*DENIED, *ALSO_DENIED} - set(BWRAP_NEEDS))
    return {
        "defaultAction": "SCMP_ACT_ALLOW",
        "archMap": [
            {"architecture": "SCMP_ARCH_X86_64", "subArchitectures": []},
            {"architecture": "SCMP_ARCH_AARCH64", "subArchitectures": []},
        ],
        "syscalls": [
            {"names": denied, "action": "SCMP_ACT_ERRNO", "errnoRet": 1},
            {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38},
        ],
    }


def render() -> str:
    return json.dumps(profile(), indent=1) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        sys.exit(0 if OUT.read_text() == render() else "grader-seccomp.json is stale: regenerate")
    OUT.write_text(render())
