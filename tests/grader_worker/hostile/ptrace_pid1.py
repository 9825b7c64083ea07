# expect: sandbox_violation
# With an unprivileged worker, bubblewrap's pid 1 runs as the program's own uid: attaching to
# it would let the program replace it and outlive the run.
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
PTRACE_ATTACH, PTRACE_DETACH = 16, 17
if libc.ptrace(PTRACE_ATTACH, 1, 0, 0) != 0:
    err = ctypes.get_errno()
    raise OSError(err, os.strerror(err))
os.waitpid(1, 0x40000000)  # __WALL
libc.ptrace(PTRACE_DETACH, 1, 0, 0)
print("attached to pid 1")
