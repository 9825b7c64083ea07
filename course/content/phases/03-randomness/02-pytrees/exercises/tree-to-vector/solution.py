# A tree as one vector (Practice): every leaf raveled, in jax.tree.leaves order.
def to_vector(a, b, c):
    leaves = jax.tree.leaves(build_tree(a, b, c))
    return {{k}} * jnp.concatenate([jnp.ravel(x) for x in leaves])


vector = to_vector(jnp.ones((2, 3)), jnp.arange(3.0), jnp.array(-2.0))
print("one vector:", vector.shape, vector)
