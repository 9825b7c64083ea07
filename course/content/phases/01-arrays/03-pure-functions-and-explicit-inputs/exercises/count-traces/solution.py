# Count traces and runs (Challenge): a Python side effect runs once per trace, a
# jax.debug.callback once per call; the difference tells you when jit retraces.
trace_log = []
run_log = []


@jax.jit
def tracked_square(v):
    trace_log.append(v.shape)
    jax.debug.callback(lambda value: run_log.append(value.shape), v)
    return v * v


for value in (1.0, 2.0, 3.0):
    tracked_square(jnp.array(value, dtype=jnp.float32))
last = tracked_square(jnp.array([1.0, 2.0]))
jax.effects_barrier()
traces, runs = len(trace_log), len(run_log)
assert (traces, runs) == (2, 4)
assert jnp.array_equal(last, jnp.array([1.0, 4.0]))
