# expect: sandbox_violation
# Issue 21, finding 1: a report whose header is one '"' followed by '\"' repeated (1 MB). The
# old trusted scan was quadratic in it (hours of the worker's CPU); the corpus asserts the
# trusted thread's CPU per job. Written to every pipe the program holds (the values pipe among
# them, not stdout or stderr), then the program leaves before the harness writes its report.
import os
import stat
import struct

header = b'"' + b'\\"' * 500_000
report = b"PWV1\n" + struct.pack(">Q", len(header)) + header
output = {os.fstat(1).st_ino, os.fstat(2).st_ino}
for name in os.listdir("/proc/self/fd"):
    fd = int(name)
    if fd > 2:
        try:
            found = os.fstat(fd)
            if stat.S_ISFIFO(found.st_mode) and found.st_ino not in output:
                os.write(fd, report)
        except OSError:
            pass
os._exit(0)
