# Count traces and runs (Challenge): a Python side effect runs once per trace, a
# jax.debug.callback once per call; the difference tells you when jit retraces.
def count_traces(n_scalars, n_shapes):
    trace_log, run_log = [], []

    @jax.jit
    def tracked_square(v):
        # TODO: append v.shape to trace_log, and log every run with jax.debug.callback
        return v * v

    for value in range(n_scalars):
        tracked_square(jnp.array(float(value), dtype=jnp.float32))
    for length in range(1, n_shapes + 1):
        tracked_square(jnp.ones(length, dtype=jnp.float32))
    # TODO: wait for the callbacks before counting
    return len(trace_log), len(run_log)


traces, runs = count_traces(3, 1)
print("traces:", traces, "| runs:", runs)
