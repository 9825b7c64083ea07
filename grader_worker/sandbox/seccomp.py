"""The seccomp filter of every run: a classic-BPF program built here, in pure Python.

Why a filter on top of namespaces and an unprivileged uid: a few system calls reach kernel
state that namespaces do not split or that the learner's uid may still use. ptrace and
process_vm_* let a run take over bubblewrap's pid 1 (same uid when the worker is unprivileged);
the kernel keyring is per uid, so add_key/keyctl would carry data to the next learner's run;
bpf, perf_event_open, userfaultfd and io_uring are large attack surface; mount, unshare, setns,
the new mount API and namespace flags to clone would let a run rebuild its own view. Each is
answered with EPERM (ENOSYS for clone3, whose flags a filter cannot read, so libc falls back to
clone), so the program sees a PermissionError and the grader reports ``sandbox_violation``.
Calls of another ABI (i386 ``int 0x80``, x32) are refused the same way: their numbers differ.

No compiler or libseccomp is needed: the program is a list of 8-byte ``sock_filter`` records.
Two entry points: ``bpf_program()`` (bytes for ``bwrap --seccomp FD``) and
``install_in_this_process()`` (for a forked warm child, after its own unshare).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
from dataclasses import dataclass

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6];
_OFF_NR = 0
_OFF_ARCH = 4
_OFF_ARG0_LOW = 16  # little-endian: the low 32 bits of args[0]

# Classic BPF opcodes (linux/filter.h, linux/bpf_common.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06

SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
X32_SYSCALL_BIT = 0x40000000

# clone() flags that make a namespace (CLONE_NEWNS, _NEWCGROUP, _NEWUTS, _NEWIPC, _NEWUSER,
# _NEWPID, _NEWNET).
CLONE_NAMESPACE_FLAGS = 0x7E020000
# personality() values that change nothing that matters (Docker's default profile allows the
# same): PER_LINUX, PER_LINUX32, UNAME26, PER_LINUX32|UNAME26 and the 0xffffffff query.
# ADDR_NO_RANDOMIZE (no ASLR) and READ_IMPLIES_EXEC are what this keeps out.
PERSONALITY_ALLOWED = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)

DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    "keyctl", "add_key", "request_key",
    "mount", "umount2", "pivot_root", "chroot", "mount_setattr", "open_tree", "move_mount",
    "fsopen", "fsconfig", "fsmount", "fspick", "unshare", "setns",
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "swapon", "swapoff", "reboot", "acct", "quotactl", "quotactl_fd", "syslog", "vhangup",
    "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "fanotify_init",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname",
    "setdomainname", "iopl", "ioperm", "modify_ldt", "uselib", "_sysctl", "nfsservctl",
)
"""Refused outright (names missing from an architecture's table do not exist there)."""


@dataclass(frozen=True)
class Arch:
    """One architecture's audit id and the system call numbers the filter names."""

    name: str
    audit: int
    syscalls: dict[str, int]
    x32_bit: bool = False


# Numbers from the kernel's tables (arch/x86/entry/syscalls/syscall_64.tbl and
# include/uapi/asm-generic/unistd.h); tests check them against libseccomp when it is installed.
X86_64 = Arch("x86_64", 0xC000003E, {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "pidfd_getfd": 438,
    "kcmp": 312, "keyctl": 250, "add_key": 248, "request_key": 249, "mount": 165,
    "umount2": 166, "pivot_root": 155, "chroot": 161, "mount_setattr": 442, "open_tree": 428,
    "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "unshare": 272, "setns": 308, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "kexec_load": 246,
    "kexec_file_load": 320, "init_module": 175, "finit_module": 313, "delete_module": 176,
    "swapon": 167, "swapoff": 168, "reboot": 169, "acct": 163, "quotactl": 179,
    "quotactl_fd": 443, "syslog": 103, "vhangup": 153, "open_by_handle_at": 304,
    "name_to_handle_at": 303, "lookup_dcookie": 212, "fanotify_init": 300,
    "settimeofday": 164, "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159,
    "sethostname": 170, "setdomainname": 171, "iopl": 172, "ioperm": 173, "modify_ldt": 154,
    "uselib": 134, "_sysctl": 156, "nfsservctl": 180,
    "clone": 56, "clone3": 435, "personality": 135,
}, x32_bit=True)

AARCH64 = Arch("aarch64", 0xC00000B7, {
    "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "pidfd_getfd": 438,
    "kcmp": 272, "keyctl": 219, "add_key": 217, "request_key": 218, "mount": 40,
    "umount2": 39, "pivot_root": 41, "chroot": 51, "mount_setattr": 442, "open_tree": 428,
    "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "unshare": 97, "setns": 268, "bpf": 280, "perf_event_open": 241, "userfaultfd": 282,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "kexec_load": 104,
    "kexec_file_load": 294, "init_module": 105, "finit_module": 273, "delete_module": 106,
    "swapon": 224, "swapoff": 225, "reboot": 142, "acct": 89, "quotactl": 60,
    "quotactl_fd": 443, "syslog": 116, "vhangup": 58, "open_by_handle_at": 265,
    "name_to_handle_at": 264, "lookup_dcookie": 18, "fanotify_init": 262,
    "settimeofday": 170, "clock_settime": 112, "clock_adjtime": 266, "adjtimex": 171,
    "sethostname": 161, "setdomainname": 162, "nfsservctl": 42,
    "clone": 220, "clone3": 435, "personality": 92,
})

ARCHES = {"x86_64": X86_64, "amd64": X86_64, "aarch64": AARCH64, "arm64": AARCH64}


class SeccompError(OSError):
    """The filter could not be built or installed on this host."""


def native_arch() -> Arch:
    machine = platform.machine().lower()
    try:
        return ARCHES[machine]
    except KeyError:
        raise SeccompError(errno.ENOSYS, f"no seccomp syscall table for {machine!r}; "
                           "add one to grader_worker/sandbox/seccomp.py") from None


def _ins(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def _ret(value: int) -> bytes:
    return _ins(_RET_K, value)


def bpf_program(arch: Arch | None = None) -> bytes:
    """The filter as ``struct sock_filter[]`` bytes (what ``bwrap --seccomp FD`` reads).

    Each test jumps at most 1-7 records ahead, so no offset can overflow a u8 however long the
    deny list grows."""
    arch = arch or native_arch()
    eperm = SECCOMP_RET_ERRNO | errno.EPERM
    nr = arch.syscalls
    prog = [_ins(_LD_W_ABS, _OFF_ARCH), _ins(_JEQ_K, arch.audit, jt=1), _ret(eperm),
            _ins(_LD_W_ABS, _OFF_NR)]
    if arch.x32_bit:
        prog += [_ins(_JGE_K, X32_SYSCALL_BIT, jf=1), _ret(eperm)]
    for name in DENIED:
        if name in nr:
            prog += [_ins(_JEQ_K, nr[name], jf=1), _ret(eperm)]
    prog += [_ins(_JEQ_K, nr["clone3"], jf=1), _ret(SECCOMP_RET_ERRNO | errno.ENOSYS)]
    # clone: refuse namespace flags in args[0]; A is reloaded, so this block ends in a return.
    prog += [_ins(_JEQ_K, nr["clone"], jf=4), _ins(_LD_W_ABS, _OFF_ARG0_LOW),
             _ins(_JSET_K, CLONE_NAMESPACE_FLAGS, jf=1), _ret(eperm), _ret(SECCOMP_RET_ALLOW)]
    allowed = PERSONALITY_ALLOWED
    prog += [_ins(_JEQ_K, nr["personality"], jf=len(allowed) + 3),
             _ins(_LD_W_ABS, _OFF_ARG0_LOW)]
    prog += [_ins(_JEQ_K, value, jt=len(allowed) - i) for i, value in enumerate(allowed)]
    prog += [_ret(eperm), _ret(SECCOMP_RET_ALLOW)]
    prog.append(_ret(SECCOMP_RET_ALLOW))
    return b"".join(prog)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1
SYS_SECCOMP = {"x86_64": 317, "aarch64": 277}


def install_in_this_process(program: bytes | None = None) -> None:
    """Load the filter into this process (all its threads), after PR_SET_NO_NEW_PRIVS.

    For a forked warm child: call it last, after the child's own unshare/mount setup (those
    calls are what the filter refuses). Irreversible; inherited by every child. Raises
    SeccompError when the kernel refuses."""
    arch = native_arch()
    program = program if program is not None else bpf_program(arch)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise SeccompError(err, f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(err)}")
    buf = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
    # seccomp(2) with TSYNC filters every thread at once; prctl only the calling thread.
    rc = libc.syscall(ctypes.c_long(SYS_SECCOMP[arch.name]), SECCOMP_SET_MODE_FILTER,
                      SECCOMP_FILTER_FLAG_TSYNC, ctypes.byref(fprog))
    if rc != 0 and ctypes.get_errno() == errno.ENOSYS:
        rc = libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0)
    if rc > 0:  # TSYNC: the id of a thread that could not be synchronised
        raise SeccompError(errno.EAGAIN, f"seccomp: thread {rc} could not take the filter")
    if rc != 0:
        err = ctypes.get_errno()
        raise SeccompError(err, f"installing the seccomp filter: {os.strerror(err)}")
