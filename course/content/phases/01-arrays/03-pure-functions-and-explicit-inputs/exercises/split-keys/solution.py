# One key per draw (Practice): split a root key into as many subkeys as you need draws, and
# use each exactly once; the same subkey always reproduces the same numbers.
def three_draws(seed):
    root = jax.random.key(seed)
    k1, k2, k3 = jax.random.split(root, 3)
    return (jax.random.uniform(k1, ({{size}},)), jax.random.uniform(k2, ({{size}},)),
            jax.random.uniform(k3, ({{size}},)))


a, b, c = three_draws(42)
again, _, _ = three_draws(42)
print("a:", a, "| b:", b, "| c:", c)
assert jnp.array_equal(a, again)
assert not jnp.array_equal(a, b) and not jnp.array_equal(b, c) and not jnp.array_equal(a, c)
