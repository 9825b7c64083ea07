# Experiment — CPU timings say nothing about TPU speed: the same step on 8 logical devices and on
# one, timed after compiling. The logical devices share this machine's cores and exchange data
# through its memory, so the 8-device step is not faster here, whatever it would be on a TPU.
# The times are printed, never asserted; only the results are.
import time


def later_seconds(step, *args):
    jax.block_until_ready(step(*args))
    start = time.perf_counter()
    for _ in range(20):
        jax.block_until_ready(step(*args))
    return (time.perf_counter() - start) / 20


eight = later_seconds(parallel_step, sharded, xb, yb)
one = later_seconds(single_step, params, x, y)
print(f"one step: 8 logical devices {eight * 1e6:.0f} us, 1 device {one * 1e6:.0f} us")
assert bool(jnp.allclose(parallel_step(sharded, xb, yb)[1], single_step(params, x, y)[1],
                         rtol=1e-5))
