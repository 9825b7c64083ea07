# max-score: 8
# why: the right value with durations typed in as 0.0
def first_and_later(v):
    time.perf_counter
    out = jnp.sum(jnp.tanh(v) * {{k}}).block_until_ready()
    return out, 0.0, 0.0
