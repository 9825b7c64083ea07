# expect: sandbox_violation graded
# Root worker: pid 1 (bwrap) is root's, EPERM. Unprivileged worker: the kernel ignores SIGKILL
# sent to a pid namespace's init from inside it; the program goes on and is graded (0 points).
import os
import signal

os.kill(os.getppid(), signal.SIGKILL)
os.kill(1, signal.SIGKILL)
