# Experiment — Duplicate indices: add accumulates every contribution; set picks an unspecified one.
base = jnp.zeros(3)
dup = jnp.array([1, 1])
added = base.at[dup].add(jnp.array([5., 7.]))
assert jnp.array_equal(added, jnp.array([0., 12., 0.]))   # guaranteed: both contributions count
replaced = base.at[dup].set(jnp.array([5., 7.]))
# Guaranteed: index 1 holds ONE of the written values and the other indices are untouched.
# Not guaranteed: which one. Do not rely on last-write-wins; use unique indices instead.
assert float(replaced[1]) in (5., 7.)
assert float(replaced[0]) == 0. and float(replaced[2]) == 0.
print("add:", added, "| set (one of 5 or 7 at index 1):", replaced)
