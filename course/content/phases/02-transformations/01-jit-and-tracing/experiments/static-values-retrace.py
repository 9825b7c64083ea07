# Experiment — Every new static value traces again: a static argument is part of the cache key,
# so five values of n are five traces (and five compilations), while five values of a traced
# argument share one.
static_traces, traced_traces = [], []


def shifted_head(v, n, shift):
    static_traces.append(n)
    return jnp.sum(v[:n]) + shift


def shifted(v, shift):
    traced_traces.append(shift)  # a tracer: one entry per trace, not per value
    return v + shift


by_n = jax.jit(shifted_head, static_argnames="n")
by_shift = jax.jit(shifted)
for n in range(1, 6):
    by_n(x, n, 0.5)
    by_shift(x, float(n))
print("static n = 1..5 -> traces:", len(static_traces), "| traced shift = 1..5 -> traces:",
      len(traced_traces))
assert static_traces == [1, 2, 3, 4, 5]
assert len(traced_traces) == 1
