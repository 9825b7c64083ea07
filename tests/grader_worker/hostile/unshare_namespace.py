# expect: sandbox_violation
# A user namespace of its own would give the program every capability inside it.
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER = 0x10000000
if libc.unshare(CLONE_NEWUSER) != 0:
    err = ctypes.get_errno()
    raise OSError(err, os.strerror(err))
print("unshared a user namespace")
