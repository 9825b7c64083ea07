# One key per draw (Practice): split a root key into as many subkeys as you need draws, and
# use each exactly once; the same subkey always reproduces the same numbers.
root = jax.random.key(42)
k1, k2, k3 = ...  # TODO: split root into three subkeys
a = jax.random.uniform(k1, (4,))  # TODO: works once k1 is a key
b = ...  # TODO: four uniform numbers from k2
c = ...  # TODO: four uniform numbers from k3
again = ...  # TODO: redraw from k1 to check reproducibility
assert jnp.array_equal(a, again)  # TODO: complete assertion check
assert not jnp.array_equal(a, b) and not jnp.array_equal(b, c)  # TODO: check
assert not jnp.array_equal(a, c)  # TODO: check
assert bool(jnp.all((a >= 0.0) & (a < 1.0)))  # TODO: complete assertion check
