# Count traces and runs (Challenge): a Python side effect runs once per trace, a
# jax.debug.callback once per call; the difference tells you when jit retraces.
trace_log = []
run_log = []


@jax.jit
def tracked_square(v):
    ...  # TODO: append v.shape to trace_log (plain Python)
    ...  # TODO: with jax.debug.callback, append the runtime value's shape to run_log
    return v * v


for value in (1.0, 2.0, 3.0):
    tracked_square(jnp.array(value, dtype=jnp.float32))
last = tracked_square(jnp.array([1.0, 2.0]))
...  # TODO: wait for pending callbacks before counting
traces, runs = len(trace_log), len(run_log)
assert (traces, runs) == (2, 4)  # TODO: complete assertion check
assert jnp.array_equal(last, jnp.array([1.0, 4.0]))  # TODO: complete assertion check
