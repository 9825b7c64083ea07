# expect: memory_limit
import numpy as np

blocks = []
while True:
    blocks.append(np.ones(32 * 1024 * 1024 // 8))
