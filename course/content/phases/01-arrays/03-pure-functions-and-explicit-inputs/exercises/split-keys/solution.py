# One key per draw (Practice): split a root key into as many subkeys as you need draws, and
# use each exactly once; the same subkey always reproduces the same numbers.
root = jax.random.key(42)
k1, k2, k3 = jax.random.split(root, 3)
a = jax.random.uniform(k1, (4,))
b = jax.random.uniform(k2, (4,))
c = jax.random.uniform(k3, (4,))
again = jax.random.uniform(k1, (4,))
assert jnp.array_equal(a, again)
assert not jnp.array_equal(a, b) and not jnp.array_equal(b, c)
assert not jnp.array_equal(a, c)
assert bool(jnp.all((a >= 0.0) & (a < 1.0)))
