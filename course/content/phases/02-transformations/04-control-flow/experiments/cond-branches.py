# Experiment — What lax.cond compiles and what it runs: both branches are traced into the one
# program, so they must return the same shapes and dtypes (an int32 branch next to a float32
# one is a TypeError). Under jit only the chosen branch runs; under vmap, with a predicate per
# example, cond becomes a select and both branches run.
g = jnp.array([1.4, -2.6])
try:
    lax.cond(True, lambda g: g * 2.0, lambda g: g.astype(jnp.int32), g)
    raise AssertionError("branches with different dtypes should be refused")
except TypeError as err:
    print("mismatched branches:", type(err).__name__, "-", str(err).splitlines()[0][:42])

ran = []


def double(g):
    jax.debug.callback(lambda: ran.append("double"))  # runs when the branch runs
    return g * 2.0


def rounded(g):
    jax.debug.callback(lambda: ran.append("round"))
    return jnp.round(g)  # float32 in, float32 out: the branches agree


chosen = jax.jit(lambda g: lax.cond(g.sum() > 0, double, rounded, g))(g)
jax.effects_barrier()
print("jit, g.sum() < 0:", chosen, "| branches run:", ran)
assert jnp.array_equal(chosen, jnp.array([1.0, -3.0])) and ran == ["round"]
ran.clear()
batched = jax.vmap(lambda g: lax.cond(g.sum() > 0, double, rounded, g))(jnp.stack([g, -g]))
jax.effects_barrier()
print("vmap over g and -g:", batched, "| branches run:", sorted(ran))
assert jnp.array_equal(batched, jnp.array([[1.0, -3.0], [-2.8, 5.2]]))
assert sorted(ran) == ["double", "round"]
