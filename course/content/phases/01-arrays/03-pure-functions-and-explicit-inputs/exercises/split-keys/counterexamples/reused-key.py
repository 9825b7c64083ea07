# max-score: 4
# why: one key reused for all three draws (an unused split beside it): the three draws repeat
def three_draws(seed):
    root = jax.random.key(seed)
    jax.random.split(root, 3)
    return tuple(jax.random.uniform(root, ({{size}},)) for _ in range(3))
