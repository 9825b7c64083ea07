# Experiment — Time a computation with and without waiting for it: the call returns as soon as
# the work is queued; only block_until_ready waits for the result.
import time

square = jax.jit(lambda a: a @ a)
big = jnp.ones((1024, 1024), dtype=jnp.float32)
square(big).block_until_ready()  # compile once, outside the timed region

start = time.perf_counter()
product = square(big)
returned = time.perf_counter()
product.block_until_ready()
finished = time.perf_counter()

dispatch_ms = (returned - start) * 1e3
ready_ms = (finished - start) * 1e3
print(f"call returned after {dispatch_ms:.2f} ms; result ready after {ready_ms:.2f} ms")
print("ready after block_until_ready:", product.is_ready())
# The only timing claim that always holds: waiting for the result never takes less time than
# queueing it. How much longer depends on the machine, so no ratio is asserted.
assert ready_ms >= dispatch_ms
assert product.is_ready()
assert float(product[0, 0]) == 1024.0
