# Experiment — with jax_threefry_partitionable (the default since JAX 0.5), element i of a draw
# depends only on the key and on i, not on the array's total size or layout. That is what makes
# a draw reproducible however the array is split across devices: each device can compute its own
# elements. (The legacy uint32 PRNGKey(0) and the typed key(0) hold the same bits.)
k = jax.random.key(0)
three, four = jax.random.normal(k, (3,)), jax.random.normal(k, (4,))
print("normal(key, (3,)):", three, "| normal(key, (4,))[:3]:", four[:3])
assert jax.config.jax_threefry_partitionable
assert jnp.array_equal(three, four[:3])
matrix = jax.random.normal(k, (2, 3))
assert jnp.array_equal(matrix.reshape(-1)[:3], three)  # row-major index, the same bits
legacy = jax.random.PRNGKey(0)  # uint32[2], the older API
print("PRNGKey(0):", legacy.dtype, legacy.shape, "| same bits as key(0):",
      bool(jnp.array_equal(legacy, jax.random.key_data(k))))
assert jnp.array_equal(jax.random.normal(legacy, (3,)), three)
