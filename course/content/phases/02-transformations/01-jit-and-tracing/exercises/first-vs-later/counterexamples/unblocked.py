# max-score: 7
# why: both clocks stopped without block_until_ready: the first measures tracing and compiling plus queueing the run, and the result is not finished when the function returns
def first_and_later(v):
    fn = jax.jit(lambda a: jnp.sum(jnp.tanh(a) * {{k}}))
    start = time.perf_counter()
    out = fn(v)
    first = time.perf_counter() - start
    start = time.perf_counter()
    fn(v)
    later = time.perf_counter() - start
    return out, first, later
