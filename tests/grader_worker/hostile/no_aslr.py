# expect: sandbox_violation
# ADDR_NO_RANDOMIZE turns address-space randomisation off for what the program starts next.
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
ADDR_NO_RANDOMIZE = 0x0040000
if libc.personality(ADDR_NO_RANDOMIZE) == -1:
    err = ctypes.get_errno()
    raise OSError(err, os.strerror(err))
print("ASLR is off")
