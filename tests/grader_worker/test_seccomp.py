"""The seccomp filter: its syscall tables are right and, loaded, it refuses what it lists."""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import subprocess
import sys

import pytest

from grader_worker.sandbox import seccomp

PROBE = r"""
import ctypes, errno, json, os, sys, threading
from grader_worker.sandbox import seccomp
arch = seccomp.native_arch()
libc = ctypes.CDLL(None, use_errno=True)
seccomp.install_in_this_process()
def call(nr, *args):
    ctypes.set_errno(0)
    rc = libc.syscall(ctypes.c_long(nr), *args)
    return [rc, errno.errorcode.get(ctypes.get_errno(), "")]
n = arch.syscalls
report = {name: call(n[name], 0, 0, 0, 0, 0) for name in seccomp.DENIED if name in n}
report["add_key"] = call(n["add_key"], b"user", b"canary", b"v", 1, ctypes.c_long(-3))
report["clone3"] = call(n["clone3"], 0, 0)
report["clone_newuser"] = call(n["clone"], 0x10000000 | 17, 0, 0, 0, 0)
report["personality_no_aslr"] = call(n["personality"], 0x0040000)
report["personality_query"] = call(n["personality"], 0xFFFFFFFF)
if arch.x32_bit:
    report["x32_getpid"] = call(0x40000000 | 39)
t = threading.Thread(target=lambda: None); t.start(); t.join()
report["fork_and_exec"] = os.popen("echo ok").read().strip()
report["getpid"] = call(39 if arch.name == "x86_64" else 172)
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def report() -> dict[str, list]:
    """Install the filter in a fresh interpreter and try every call it should refuse."""
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_listed_call_is_refused_with_eperm(report) -> None:
    denied = {k: v for k, v in report.items() if k in seccomp.DENIED}
    assert len(denied) >= 50
    assert all(v == [-1, "EPERM"] for v in denied.values()), denied


def test_keyring_namespaces_and_aslr_are_closed(report) -> None:
    assert report["add_key"] == [-1, "EPERM"]
    assert report["clone_newuser"] == [-1, "EPERM"]
    assert report["personality_no_aslr"] == [-1, "EPERM"]
    assert report["clone3"] == [-1, "ENOSYS"]  # libc falls back to clone, whose flags we see
    if "x32_getpid" in report:
        assert report["x32_getpid"] == [-1, "EPERM"]


def test_ordinary_programs_still_run(report) -> None:
    assert report["fork_and_exec"] == "ok"
    assert report["getpid"][0] > 0
    assert report["personality_query"][0] >= 0


def test_program_is_whole_records_and_short() -> None:
    program = seccomp.bpf_program()
    assert len(program) % 8 == 0 and 0 < len(program) // 8 < 4096
    assert seccomp.bpf_program(seccomp.AARCH64) != seccomp.bpf_program(seccomp.X86_64)


@pytest.mark.skipif(ctypes.util.find_library("seccomp") is None, reason="libseccomp not here")
@pytest.mark.parametrize("arch", [seccomp.X86_64, seccomp.AARCH64], ids=lambda a: a.name)
def test_syscall_numbers_match_libseccomp(arch: seccomp.Arch) -> None:
    lib = ctypes.CDLL(ctypes.util.find_library("seccomp"))
    lib.seccomp_syscall_resolve_name_arch.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
    for name in {*seccomp.DENIED, *arch.syscalls}:
        known = lib.seccomp_syscall_resolve_name_arch(arch.audit, name.encode())
        assert arch.syscalls.get(name, -1) == (known if known >= 0 else -1), name

