# Experiment — Reuse a key and measure the damage: two "independent" noise vectors drawn with
# the same key are identical (correlation 1), while split keys give uncorrelated draws.
noise_key = jax.random.key(7)
reused_a = jax.random.normal(noise_key, (10_000,))
reused_b = jax.random.normal(noise_key, (10_000,))
key_a, key_b = jax.random.split(noise_key)
split_a = jax.random.normal(key_a, (10_000,))
split_b = jax.random.normal(key_b, (10_000,))
reused_corr = float(jnp.corrcoef(reused_a, reused_b)[0, 1])
split_corr = float(jnp.corrcoef(split_a, split_b)[0, 1])
print(f"correlation, same key: {reused_corr:.3f} | split keys: {split_corr:.3f}")
print("key implementation:", jax.random.key_impl(noise_key))
assert jnp.array_equal(reused_a, reused_b) and reused_corr > 0.999
assert abs(split_corr) < 0.05  # about 1/sqrt(10000) = 0.01 for independent draws
assert str(jax.random.key_impl(noise_key)) == "threefry2x32"
