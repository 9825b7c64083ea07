# Experiment — vmap is not a loop: vmap rewrites each operation to work on a batch axis, so the
# program has as many equations for 1,000 examples as for one; a Python loop is unrolled into one
# copy of the body per example.
def count_equations(fn, *args):
    return len(jax.make_jaxpr(fn)(*args).jaxpr.eqns)


many = jnp.ones((1000, 2))
one_pair = count_equations(distance, points[0], origins[0])
vmapped = {n: count_equations(jax.vmap(distance), many[:n], many[:n]) for n in (3, 1000)}
looped = {n: count_equations(lambda p, o: jnp.stack([distance(a, b) for a, b in zip(p, o)]),
                             many[:n], many[:n]) for n in (3, 10)}
print("equations: one pair", one_pair, "| vmap over 3 and 1000 pairs", list(vmapped.values()),
      "| Python loop over 3 and 10 pairs", list(looped.values()))
assert vmapped[3] == vmapped[1000] == one_pair
assert looped[10] > looped[3] > one_pair
