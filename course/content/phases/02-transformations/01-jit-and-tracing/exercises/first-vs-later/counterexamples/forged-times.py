# max-score: 8
# why: plausible durations typed in (first 0.5 s, later 0.01 s): the same on every call, and longer than the call on a host that is not slow
def first_and_later(v):
    time.perf_counter
    out = jnp.sum(jnp.tanh(v) * {{k}}).block_until_ready()
    return out, 0.5, 0.01
