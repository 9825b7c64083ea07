# Experiment — the bug a reused key makes: two dropout layers given the same key drop the same
# units, so the masks are perfectly correlated. Split once per use and they are independent.
layer_key = jax.random.key(7)
mask_1 = jax.random.bernoulli(layer_key, 0.5, (1000,))
mask_2 = jax.random.bernoulli(layer_key, 0.5, (1000,))  # the bug: the same key again
print("same key: masks agree on", int(jnp.sum(mask_1 == mask_2)), "of 1000 units")
assert jnp.array_equal(mask_1, mask_2)

k1, k2 = jax.random.split(layer_key)
agree = int(jnp.sum(jax.random.bernoulli(k1, 0.5, (1000,))
                    == jax.random.bernoulli(k2, 0.5, (1000,))))
print("split keys: masks agree on", agree, "of 1000 units (about half, by chance)")
assert 400 < agree < 600
