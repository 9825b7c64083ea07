# max-score: 4
# why: a, b, c in argument order (an unused tree.leaves beside it), not in the tree's leaf order
def to_vector(a, b, c):
    jax.tree.leaves(build_tree(a, b, c))
    return {{k}} * jnp.concatenate([jnp.ravel(a), jnp.ravel(b), jnp.ravel(c)])
