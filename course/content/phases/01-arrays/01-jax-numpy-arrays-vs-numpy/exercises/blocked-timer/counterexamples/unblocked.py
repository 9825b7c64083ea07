# max-score: 7
# why: the clock stopped without block_until_ready: it measures how long queueing the work took, and the results are not finished when it returns
import time


def timed_stats(a):
    start = time.perf_counter()
    total, largest = jnp.sum(a), jnp.max(a)
    return total, largest, time.perf_counter() - start
