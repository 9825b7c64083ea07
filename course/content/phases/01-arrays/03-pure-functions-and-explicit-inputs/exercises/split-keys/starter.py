# One key per draw (Practice): split a root key into as many subkeys as you need draws, and
# use each exactly once; the same subkey always reproduces the same numbers.
def three_draws(seed):
    root = jax.random.key(seed)
    k1, k2, k3 = ..., ..., ...  # TODO: three subkeys split from root
    return ...  # TODO: a tuple of three uniform draws of shape ({{size}},), one subkey each


draws = three_draws(42)
print("draws:", draws)
