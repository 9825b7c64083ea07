# max-score: 9
# why: the right value with durations typed in as 0.0 (block_until_ready and perf_counter named, unused)
def first_and_later(v):
    time.perf_counter
    out = jnp.sum(jnp.tanh(v) * {{k}}).block_until_ready()
    return out, 0.0, 0.0
