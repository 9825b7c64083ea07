# expect: memory_limit timeout
# timeout: the kernel's time finding it room is its CPU time; on a host whose free memory is
# page cache it can run out of CPU first, and is told how much memory it held (grading.py).
import numpy as np

blocks = []
while True:
    blocks.append(np.ones(32 * 1024 * 1024 // 8))
