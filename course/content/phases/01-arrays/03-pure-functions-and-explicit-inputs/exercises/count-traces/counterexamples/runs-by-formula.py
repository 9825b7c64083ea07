# max-score: 7
# why: the traces observed but the runs computed (one per call) instead of counted by a jax.debug.callback
def count_traces(n_scalars, n_shapes):
    trace_log = []

    @jax.jit
    def tracked_square(v):
        trace_log.append(v.shape)
        return v * v

    for value in range(n_scalars):
        tracked_square(jnp.array(float(value), dtype=jnp.float32))
    for length in range(1, n_shapes + 1):
        tracked_square(jnp.ones(length, dtype=jnp.float32))
    return len(trace_log), n_scalars + n_shapes
