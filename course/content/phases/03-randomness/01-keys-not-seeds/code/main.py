# Random numbers in JAX come from keys, not from a hidden global state: the same key always
# gives the same numbers, so every random draw is a pure function of its key. Split a key to
# get new ones, fold a counter into it to name a stream, map over a batch of keys with vmap,
# and draw under jit exactly as without it.
# region step-1
import jax
import jax.numpy as jnp

key = jax.random.key(0)  # a typed key array: shape (), dtype key<fry>
first = jax.random.normal(key, (3,))
again = jax.random.normal(key, (3,))
print("key:", key.dtype, "| normal(key):", first, "| again:", again)
assert jnp.array_equal(first, again)  # no state moved: the same key, the same numbers
# endregion

# region step-2
key, noise_key, dropout_key = jax.random.split(key, 3)  # three new, independent keys
noise = jax.random.normal(noise_key, (3,))
keep = jax.random.bernoulli(dropout_key, 0.5, (3,))
print("after split: noise", noise, "| keep mask", keep)
assert not jnp.array_equal(noise, first)

reused = jax.random.normal(noise_key, (1000,)), jax.random.normal(noise_key, (1000,))
fresh = [jax.random.normal(k, (1000,)) for k in jax.random.split(noise_key, 2)]
print("correlation of two draws from one key:", round(float(jnp.corrcoef(*reused)[0, 1]), 3),
      "| from two split keys:", round(float(jnp.corrcoef(*fresh)[0, 1]), 3))
assert float(jnp.corrcoef(*reused)[0, 1]) > 0.999  # reusing a key is a bug you can measure
# endregion

# region step-3
per_example = jax.random.split(jax.random.key(1), 4)  # one key per example
draws = jax.vmap(lambda k: jax.random.normal(k, (2,)))(per_example)
one_by_one = jnp.stack([jax.random.normal(k, (2,)) for k in per_example])
print("vmap over 4 keys:", draws.shape, "| row 0:", draws[0])
assert jnp.array_equal(draws, one_by_one)  # vmap draws what each key would draw alone

stream = jax.random.key(2)
step_keys = [jax.random.fold_in(stream, step) for step in range(3)]  # a key per step number
print("fold_in(key, 1) is the same every time:",
      bool(jnp.array_equal(jax.random.uniform(step_keys[1]),
                           jax.random.uniform(jax.random.fold_in(stream, 1)))))
# endregion

# region step-4
@jax.jit
def noisy(key, x):
    return x + 0.1 * jax.random.normal(key, x.shape)


x = jnp.arange(4.0)
k = jax.random.key(3)
print("under jit:", noisy(k, x), "| eager:", x + 0.1 * jax.random.normal(k, x.shape))
assert jnp.allclose(noisy(k, x), x + 0.1 * jax.random.normal(k, x.shape))
assert jnp.array_equal(noisy(k, x), noisy(k, x))  # the key is an argument: same key, same noise
print("key data (two uint32 words):", jax.random.key_data(k),
      "| partitionable threefry:", jax.config.jax_threefry_partitionable)
# endregion
print("PASS: randomness-01")
